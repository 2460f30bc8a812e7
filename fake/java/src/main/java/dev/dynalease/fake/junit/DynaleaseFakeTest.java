package dev.dynalease.fake.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose tests each get a fresh fake: a {@code dynalease-fake} server for the class,
 * reset before each test, handed to test methods and constructors as a parameter of type {@link
 * dev.dynalease.fake.DynaleaseFake}, or as an AWS SDK for Java v2 client for it ({@code
 * DynamoDbClient}, {@code DynamoDbAsyncClient}, {@code DynamoDbStreamsClient}, {@code
 * DynamoDbEnhancedClient}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(DynaleaseFakeExtension.class)
public @interface DynaleaseFakeTest {
    /** A clock that stands still until a test moves it (reset puts it back at its start). */
    boolean manualClock() default false;

    /** Where the clock starts, in RFC 3339 ({@code 2026-01-01T00:00:00Z}); empty: the time of day. */
    String startTime() default "";

    /** The seed of every random choice of the server. */
    long seed() default 0;
}
