package dev.dynalease.fake;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code dynalease-fake serve} on a free loopback port for as long as this object is open, with its
 * clock, fault rules, tables and request log steered through the control API.
 *
 * <pre>{@code
 * try (DynaleaseFake fake = DynaleaseFake.start(FakeOptions.defaults().manualClock())) {
 *     URI endpoint = fake.endpoint();   // for any SDK's endpoint override
 *     fake.advance(Duration.ofDays(2)); // time-to-live deletions made before it returns
 * }
 * }</pre>
 *
 * <p>No server outlives the JVM that started it: its stdin is a pipe from the JVM ({@code serve
 * --stop-on-stdin-close}); a shutdown hook stops it when the JVM exits, and when the JVM is killed
 * ({@code kill -9}) the pipe closes and the server stops.
 */
public final class DynaleaseFake implements AutoCloseable {
    private final ServerProcess process;
    private final ControlClient control;
    private final URI endpoint;
    private final Instant manualStart;

    private DynaleaseFake(ServerProcess process, Instant manualStart) {
        this.process = process;
        this.endpoint = URI.create(process.endpoint());
        this.control = new ControlClient(process.endpoint());
        this.manualStart = manualStart;
    }

    /** Starts a server with the default options. */
    public static DynaleaseFake start() {
        return start(FakeOptions.defaults());
    }

    /**
     * Starts a server and waits until it listens: a {@link ServerStartException} with what it
     * printed if it does not, a {@link BinaryNotFoundException} on a platform the jar carries no
     * server for.
     */
    public static DynaleaseFake start(FakeOptions options) {
        ServerProcess process = ServerProcess.start(options.command(), options.startTimeout());
        try {
            DynaleaseFake fake = new DynaleaseFake(process, null);
            if (!options.isManualClock()) {
                return fake;
            }
            return new DynaleaseFake(process, fake.now());
        } catch (RuntimeException e) {
            process.kill();
            throw e;
        }
    }

    /** The server's URL, such as {@code http://127.0.0.1:40123}. */
    public URI endpoint() {
        return endpoint;
    }

    /** The server's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the server process runs. */
    public boolean isRunning() {
        return process.isAlive();
    }

    /** Everything the server has printed. */
    public String output() {
        return process.output();
    }

    // The clock.

    /** The fake's time. */
    public Instant now() {
        return reading(control.request("GET", "clock", null));
    }

    /** Whether the fake's clock stands still. */
    public boolean isFrozen() {
        return control.request("GET", "clock", null).path("Frozen").asBoolean();
    }

    /**
     * Moves the fake's clock forward; what fell due in between (time-to-live deletions with their
     * stream records) is done before it returns. Returns the new time.
     */
    public Instant advance(Duration by) {
        return reading(control.requestJson("POST", "clock/advance", Map.of("Seconds", by.toMillis() / 1000.0)));
    }

    /** Moves the fake's clock forward by a text such as {@code "2days"}, {@code "90s"} or {@code "2h 30m"}. */
    public Instant advance(String by) {
        return reading(control.requestJson("POST", "clock/advance", Map.of("By", by)));
    }

    /** Moves the fake's clock forward to {@code time} (it never goes back). Returns the new time. */
    public Instant setTime(Instant time) {
        return reading(control.requestJson("POST", "clock/set", Map.of("EpochSeconds", time.toEpochMilli() / 1000.0)));
    }

    /** Stops the fake's clock where it is; returns that time. */
    public Instant freeze() {
        return reading(control.request("POST", "clock/freeze", null));
    }

    /** Lets the fake's clock run with real time from where it stands; returns that time. */
    public Instant run() {
        return reading(control.request("POST", "clock/resume", null));
    }

    // Faults.

    /** Adds a fault rule; returns its id. */
    public long addFault(FaultRule rule) {
        return control.requestJson("POST", "faults", rule.toControl()).path("Id").asLong();
    }

    /** Removes one fault rule; a {@link ControlException} (404) if there is none of that id. */
    public void removeFault(long id) {
        control.request("DELETE", "faults/" + id, null);
    }

    /** Removes every fault rule; returns their ids. */
    public List<Long> clearFaults() {
        List<Long> removed = new ArrayList<>();
        control.request("DELETE", "faults", null).path("Removed").forEach(id -> removed.add(id.asLong()));
        return removed;
    }

    /**
     * The fault rules, as the control API lists them: {@code Id}, {@code Fault}, {@code Operation},
     * {@code Table}, ..., {@code Matched} (requests it matched) and {@code Fired} (faults it gave).
     */
    public List<JsonNode> faults() {
        List<JsonNode> rules = new ArrayList<>();
        control.request("GET", "faults", null).path("Rules").forEach(rules::add);
        return rules;
    }

    // Tables.

    /**
     * Everything back to how a test wants to find it: every table gone, every fault rule removed,
     * the request log emptied, and a manual clock back at the time it started, standing still.
     */
    public void reset() {
        if (manualStart != null) {
            Map<String, Object> start = Map.of("EpochSeconds", manualStart.toEpochMilli() / 1000.0);
            JsonNode answer = control.requestJson("POST", "reset", start);
            if (!answer.path("Clock").path("Frozen").asBoolean()) {
                // The test let the clock run: stopped, then put back, so that it stands at its start.
                control.request("POST", "clock/freeze", null);
                control.requestJson("POST", "reset", start);
            }
        } else {
            control.request("POST", "reset", null);
        }
        control.request("DELETE", "faults", null);
        control.request("DELETE", "requests", null);
    }

    /** Every table, with its indexes, settings and items, as JSON text ({@link #load} takes it back). */
    public String snapshot() {
        return control.request("GET", "snapshot", null).toString();
    }

    /**
     * Replaces every table with those of {@code snapshot} (JSON text), all at once; returns their
     * names. One that does not load changes nothing: a {@link ControlException} names its line,
     * column and fault.
     */
    public List<String> load(String snapshot) {
        List<String> names = new ArrayList<>();
        control.request("PUT", "snapshot", snapshot).path("Tables").forEach(name -> names.add(name.asText()));
        return names;
    }

    /** Replaces every table with those of the snapshot file {@code file}. */
    public List<String> load(Path file) {
        try {
            return load(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the tables to the {@code --data} file now (a {@link ControlException}, 409, without one). */
    public void save() {
        control.request("POST", "save", null);
    }

    // The request log.

    /** The request log, oldest first: {@code Time}, {@code Operation}, {@code Table}, {@code Outcome}, {@code Fault}. */
    public List<JsonNode> requests() {
        return requests("requests");
    }

    /** The latest {@code limit} requests of the log, oldest first. */
    public List<JsonNode> requests(int limit) {
        return requests("requests?limit=" + limit);
    }

    /** Empties the request log. */
    public void clearRequests() {
        control.request("DELETE", "requests", null);
    }

    private List<JsonNode> requests(String path) {
        List<JsonNode> log = new ArrayList<>();
        control.request("GET", path, null).path("Requests").forEach(log::add);
        return log;
    }

    // The end.

    /**
     * Stops the server as SIGTERM does (requests in flight answered, the data file written); kills
     * it after 10 s. A {@link ServerException} if it exited with an error.
     */
    @Override
    public void close() {
        process.stop(Duration.ofSeconds(10));
    }

    /** Calls {@code listener} with the method and path of every control request from now on. */
    void onControlRequest(java.util.function.BiConsumer<String, String> listener) {
        control.onRequest(listener);
    }

    private static Instant reading(JsonNode clock) {
        return Instant.ofEpochMilli(clock.path("EpochMillis").asLong());
    }
}
