package dev.dynalease.fake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dynalease.fake.DynaleaseFake;
import dev.dynalease.fake.Fault;
import dev.dynalease.fake.FaultRule;
import dev.dynalease.fake.junit.DynaleaseFakeTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The example suite, as the npm package's (fake/node/example): a cart that expires when the clock
 * moves, a throttled write retried by the SDK, a snapshot restored, a transaction whose condition
 * fails; each test on a fresh fake.
 */
@DynaleaseFakeTest(manualClock = true, startTime = "2026-01-01T00:00:00Z")
class CartsTest {
    static AttributeValue s(String text) {
        return AttributeValue.fromS(text);
    }

    static void createCarts(DynamoDbClient client) {
        client.createTable(table -> table.tableName("Carts")
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build()));
    }

    @Test
    void aCartExpiresOnceTheClockPassesItsTimeToLive(DynamoDbClient client, DynaleaseFake fake) {
        createCarts(client);
        client.updateTimeToLive(ttl -> ttl.tableName("Carts")
                .timeToLiveSpecification(spec -> spec.enabled(true).attributeName("expires")));
        long tomorrow = fake.now().getEpochSecond() + 86_400;
        client.putItem(put -> put.tableName("Carts").item(Map.of("id", s("c1"), "expires", AttributeValue.fromN(Long.toString(tomorrow)))));

        fake.advance(Duration.ofDays(2)); // the sweeps due run before it returns

        assertTrue(client.getItem(get -> get.tableName("Carts").key(Map.of("id", s("c1")))).item().isEmpty());
    }

    @Test
    void aThrottledWriteIsRetriedByTheSdkAndAppliedOnce(DynamoDbClient client, DynaleaseFake fake) {
        createCarts(client);
        fake.addFault(FaultRule.of(Fault.THROTTLE).operation("UpdateItem").times(1));

        Map<String, AttributeValue> cart = client.updateItem(update -> update.tableName("Carts")
                .key(Map.of("id", s("c2")))
                .updateExpression("ADD quantity :one")
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1")))
                .returnValues(ReturnValue.ALL_NEW)).attributes();

        assertEquals(AttributeValue.fromN("1"), cart.get("quantity"));
        List<String> outcomes = fake.requests().stream()
                .filter(request -> request.path("Operation").asText().equals("UpdateItem"))
                .map(request -> request.path("Outcome").asText())
                .collect(Collectors.toList());
        assertEquals(List.of("ProvisionedThroughputExceededException", "OK"), outcomes);
    }

    @Test
    void aSnapshotPutsTheTablesBackAsTheyWere(DynamoDbClient client, DynaleaseFake fake) {
        createCarts(client);
        client.putItem(put -> put.tableName("Carts").item(Map.of("id", s("c3"), "items", AttributeValue.fromSs(List.of("tea", "milk")))));
        String saved = fake.snapshot();

        client.deleteItem(delete -> delete.tableName("Carts").key(Map.of("id", s("c3"))));
        assertTrue(client.getItem(get -> get.tableName("Carts").key(Map.of("id", s("c3")))).item().isEmpty());

        assertEquals(List.of("Carts"), fake.load(saved));
        Map<String, AttributeValue> item = client.getItem(get -> get.tableName("Carts").key(Map.of("id", s("c3")))).item();
        assertEquals(List.of("milk", "tea"), item.get("items").ss().stream().sorted().collect(Collectors.toList()));
    }

    @Test
    void aTransactionWhoseConditionFailsIsCancelledAndChangesNothing(DynamoDbClient client) {
        createCarts(client);
        client.putItem(put -> put.tableName("Carts").item(Map.of("id", s("c4"), "state", s("paid"))));

        TransactionCanceledException cancelled = assertThrows(TransactionCanceledException.class,
                () -> client.transactWriteItems(transaction -> transaction.transactItems(
                        TransactWriteItem.builder().put(put -> put.tableName("Carts").item(Map.of("id", s("c5"), "state", s("open")))).build(),
                        TransactWriteItem.builder().conditionCheck(check -> check.tableName("Carts")
                                .key(Map.of("id", s("c4")))
                                .conditionExpression("#state = :open")
                                .expressionAttributeNames(Map.of("#state", "state"))
                                .expressionAttributeValues(Map.of(":open", s("open")))).build())));

        List<String> reasons = cancelled.cancellationReasons().stream().map(CancellationReason::code).collect(Collectors.toList());
        assertEquals(List.of("None", "ConditionalCheckFailed"), reasons);
        assertTrue(client.getItem(get -> get.tableName("Carts").key(Map.of("id", s("c5")))).item().isEmpty());
    }

    @Test
    void theAsyncAndStreamsClientsReachTheSameFake(DynamoDbClient client, DynamoDbAsyncClient async, DynamoDbStreamsClient streams) {
        createCarts(client);
        client.updateTable(update -> update.tableName("Carts")
                .streamSpecification(spec -> spec.streamEnabled(true).streamViewType("NEW_IMAGE")));
        async.putItem(put -> put.tableName("Carts").item(Map.of("id", s("c6")))).join();

        assertEquals(List.of("Carts"), async.listTables().join().tableNames());
        assertEquals("Carts", streams.listStreams(list -> list.tableName("Carts")).streams().get(0).tableName());
    }
}
