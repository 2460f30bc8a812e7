package dev.dynalease.fake.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dynalease.fake.DynaleaseFake;
import dev.dynalease.fake.junit.DynaleaseFakeTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbVersionAttribute;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** The Enhanced Client's annotated beans against the fake: a table made from a bean, its optimistic locking. */
@DynaleaseFakeTest
public class EnhancedClientTest {
    /** A cart, as an annotated bean. */
    @DynamoDbBean
    public static class Cart {
        private String id;
        private List<String> items;
        private Long version;

        @DynamoDbPartitionKey
        public String getId() {
            return id;
        }

        public void setId(String id) {
            this.id = id;
        }

        public List<String> getItems() {
            return items;
        }

        public void setItems(List<String> items) {
            this.items = items;
        }

        @DynamoDbVersionAttribute
        public Long getVersion() {
            return version;
        }

        public void setVersion(Long version) {
            this.version = version;
        }
    }

    static Cart cart(String id, List<String> items) {
        Cart cart = new Cart();
        cart.setId(id);
        cart.setItems(items);
        return cart;
    }

    @Test
    void aBeanIsWrittenAndReadBackAndAStaleVersionIsRefused(DynamoDbEnhancedClient enhanced, DynaleaseFake fake) {
        DynamoDbTable<Cart> carts = enhanced.table("Carts", TableSchema.fromBean(Cart.class));
        carts.createTable();
        carts.putItem(cart("c1", List.of("tea")));

        Cart read = carts.getItem(Key.builder().partitionValue("c1").build());
        assertEquals(List.of("tea"), read.getItems());
        assertEquals(Long.valueOf(1), read.getVersion());

        read.setItems(List.of("tea", "milk"));
        carts.updateItem(read); // version 1 -> 2
        Cart stale = cart("c1", List.of("coffee"));
        stale.setVersion(1L);
        assertThrows(ConditionalCheckFailedException.class, () -> carts.putItem(stale));
        assertEquals(List.of("tea", "milk"), carts.getItem(Key.builder().partitionValue("c1").build()).getItems());
        assertEquals(List.of("Carts"), fake.load(fake.snapshot()));
    }
}
