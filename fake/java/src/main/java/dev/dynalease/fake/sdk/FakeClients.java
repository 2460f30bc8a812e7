package dev.dynalease.fake.sdk;

import java.net.URI;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * AWS SDK for Java v2 clients for a fake's endpoint: region us-east-1, dummy credentials, and the
 * SDK's standard retries without waiting between attempts, so that a test of a throttled request
 * never sleeps. Each is made once, at its first use, and closed by {@link #close}.
 */
public final class FakeClients implements Function<String, Object>, AutoCloseable {
    private final URI endpoint;
    private DynamoDbClient client;
    private DynamoDbAsyncClient asyncClient;
    private DynamoDbStreamsClient streamsClient;
    private DynamoDbEnhancedClient enhancedClient;

    /** Clients for the server at {@code endpoint}. */
    public FakeClients(URI endpoint) {
        this.endpoint = endpoint;
    }

    /** The overrides every client of the fake gets: retries at once. */
    public static ClientOverrideConfiguration overrides() {
        return ClientOverrideConfiguration.builder()
                .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .backoffStrategy(BackoffStrategy.retryImmediately())
                        .throttlingBackoffStrategy(BackoffStrategy.retryImmediately())
                        .build())
                .build();
    }

    /** Dummy credentials: the fake takes any. */
    public static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("fake", "fake"));
    }

    /** The DynamoDB client. */
    public synchronized DynamoDbClient client() {
        if (client == null) {
            client = DynamoDbClient.builder()
                    .endpointOverride(endpoint)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(credentials())
                    .overrideConfiguration(overrides())
                    .build();
        }
        return client;
    }

    /** The asynchronous DynamoDB client. */
    public synchronized DynamoDbAsyncClient asyncClient() {
        if (asyncClient == null) {
            asyncClient = DynamoDbAsyncClient.builder()
                    .endpointOverride(endpoint)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(credentials())
                    .overrideConfiguration(overrides())
                    .build();
        }
        return asyncClient;
    }

    /** The DynamoDB Streams client (the server answers it on the same port). */
    public synchronized DynamoDbStreamsClient streamsClient() {
        if (streamsClient == null) {
            streamsClient = DynamoDbStreamsClient.builder()
                    .endpointOverride(endpoint)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(credentials())
                    .overrideConfiguration(overrides())
                    .build();
        }
        return streamsClient;
    }

    /** The Enhanced Client's entry point, over {@link #client()}. */
    public synchronized DynamoDbEnhancedClient enhancedClient() {
        if (enhancedClient == null) {
            enhancedClient = DynamoDbEnhancedClient.builder().dynamoDbClient(client()).build();
        }
        return enhancedClient;
    }

    /** The client of the type named {@code type} (one of the four above). */
    @Override
    public Object apply(String type) {
        switch (type) {
            case "software.amazon.awssdk.services.dynamodb.DynamoDbClient":
                return client();
            case "software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient":
                return asyncClient();
            case "software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient":
                return streamsClient();
            case "software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient":
                return enhancedClient();
            default:
                throw new IllegalArgumentException("no client of type " + type);
        }
    }

    /** Closes the clients made. */
    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
        }
        if (asyncClient != null) {
            asyncClient.close();
        }
        if (streamsClient != null) {
            streamsClient.close();
        }
    }
}
