package dev.dynalease.fake.sdk;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dynalease.fake.DynaleaseFake;
import dev.dynalease.fake.junit.DynaleaseFakeTest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

@DynaleaseFakeTest(manualClock = true)
class TokensTest {
    @Test
    void aTokenExpiresAfterADay(DynamoDbClient dynamodb, DynaleaseFake fake) {
        dynamodb.createTable(t -> t.tableName("Tokens").billingMode("PAY_PER_REQUEST")
                .attributeDefinitions(a -> a.attributeName("id").attributeType("S"))
                .keySchema(k -> k.attributeName("id").keyType("HASH")));
        dynamodb.updateTimeToLive(t -> t.tableName("Tokens")
                .timeToLiveSpecification(s -> s.enabled(true).attributeName("expires")));
        long tomorrow = fake.now().getEpochSecond() + 86_400;
        dynamodb.putItem(p -> p.tableName("Tokens").item(Map.of(
                "id", AttributeValue.fromS("t1"), "expires", AttributeValue.fromN(Long.toString(tomorrow)))));

        fake.advance(Duration.ofDays(2)); // two days pass in one call; the sweeps due run before it returns

        assertTrue(dynamodb.getItem(g -> g.tableName("Tokens").key(Map.of("id", AttributeValue.fromS("t1")))).item().isEmpty());
    }
}
