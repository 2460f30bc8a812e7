package dev.dynalease.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dynalease.fake.junit.DynaleaseFakeTest;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The JUnit extension hands each test the class's server, reset: no table, no fault rule, an empty
 * request log, the manual clock back at its start and standing still, whatever the test before left.
 */
@DynaleaseFakeTest(manualClock = true, startTime = "2026-01-01T00:00:00Z", seed = 7)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ExtensionTest {
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    static long firstPid;

    @RepeatedTest(2)
    @Order(1)
    void eachTestFindsTheServerResetWhateverTheOneBeforeLeft(DynaleaseFake fake) {
        if (firstPid == 0) {
            firstPid = fake.pid();
        }
        assertEquals(firstPid, fake.pid(), "one server for the class");
        assertEquals(START, fake.now());
        assertTrue(fake.isFrozen());
        assertEquals(0, fake.faults().size());
        assertEquals(0, fake.requests().size());
        assertTrue(fake.snapshot().contains("\"Tables\":[]"), fake.snapshot());

        fake.load("{\"Tables\": [{\"TableName\": \"Leftover\", \"BillingMode\": \"PAY_PER_REQUEST\","
                + " \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],"
                + " \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}]}]}");
        fake.addFault(FaultRule.of(Fault.THROTTLE).operation("Scan"));
        fake.advance(Duration.ofDays(3));
        fake.run();
    }

    @Test
    @Order(2)
    void theClockMovesOnlyWhenTold(DynaleaseFake fake) {
        assertEquals(START.plusSeconds(90), fake.advance(Duration.ofSeconds(90)));
        assertEquals(START.plusSeconds(90 + 7200), fake.advance("2h"));
        assertEquals(Instant.parse("2026-02-01T00:00:00Z"), fake.setTime(Instant.parse("2026-02-01T00:00:00Z")));
        fake.run();
        assertTrue(!fake.isFrozen());
        fake.freeze();
        assertTrue(fake.isFrozen());
    }
}
