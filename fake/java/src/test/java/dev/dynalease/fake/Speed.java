package dev.dynalease.fake;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The speed figures of fake/java/README.md: {@code DynaleaseFake.start()} until the server names
 * its address, and {@code reset()} after a test that left a table, a fault rule, requests and a
 * clock moved and let run. A program, not a test:
 *
 * <pre>java -cp TEST_CLASSES:JAR:JACKSON dev.dynalease.fake.Speed [starts] [resets]</pre>
 */
public final class Speed {
    private Speed() {}

    public static void main(String[] args) {
        int starts = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int resets = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        DynaleaseFake.start().close(); // the binary out of the jar, the classes loaded
        List<Double> startTimes = new ArrayList<>();
        for (int i = 0; i < starts; i++) {
            long begun = System.nanoTime();
            DynaleaseFake fake = DynaleaseFake.start();
            startTimes.add((System.nanoTime() - begun) / 1e6);
            fake.close();
        }
        List<Double> resetTimes = new ArrayList<>();
        String table = "{\"Tables\": [{\"TableName\": \"Left\", \"BillingMode\": \"PAY_PER_REQUEST\","
                + " \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],"
                + " \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}],"
                + " \"Items\": [{\"pk\": {\"S\": \"x\"}}]}]}";
        FakeOptions options = FakeOptions.defaults().manualClock().startTime(Instant.parse("2026-01-01T00:00:00Z"));
        try (DynaleaseFake fake = DynaleaseFake.start(options)) {
            for (int i = 0; i < resets; i++) {
                fake.load(table);
                fake.addFault(FaultRule.of(Fault.THROTTLE).operation("Scan"));
                fake.advance(Duration.ofMinutes(1));
                fake.run();
                long begun = System.nanoTime();
                fake.reset();
                resetTimes.add((System.nanoTime() - begun) / 1e6);
            }
        }
        System.out.printf("DynaleaseFake.start() until the server names its address, median of %d: %.2f ms (95th percentile %.2f ms)%n",
                starts, quantile(startTimes, 0.5), quantile(startTimes, 0.95));
        System.out.printf("reset() after a test, median of %d: %.3f ms (95th percentile %.3f ms)%n",
                resets, quantile(resetTimes, 0.5), quantile(resetTimes, 0.95));
    }

    private static double quantile(List<Double> values, double q) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(sorted.size() * q)));
    }
}
