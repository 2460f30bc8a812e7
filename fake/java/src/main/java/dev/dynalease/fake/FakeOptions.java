package dev.dynalease.fake;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of {@link DynaleaseFake#start}: those of {@code dynalease-fake serve} (the README of
 * {@code fake/} describes each), and how this package runs it.
 */
public final class FakeOptions {
    private final Map<String, String> flags = new LinkedHashMap<>();
    private Path binary;
    private Duration startTimeout = Duration.ofSeconds(30);
    private boolean manualClock;

    /** The defaults: a real clock, the time of day, on a free loopback port. */
    public static FakeOptions defaults() {
        return new FakeOptions();
    }

    /** A clock that stands still until a test moves it ({@code --clock manual}). */
    public FakeOptions manualClock() {
        manualClock = true;
        return flag("clock", "manual");
    }

    /** Where the clock starts ({@code --start-time}). */
    public FakeOptions startTime(Instant startTime) {
        return flag("start-time", startTime.toString());
    }

    /** The seed of every random choice ({@code --seed}). */
    public FakeOptions seed(long seed) {
        return flag("seed", Long.toString(seed));
    }

    /** A file the tables are loaded from at start and saved to when the server stops ({@code --data}). */
    public FakeOptions data(Path file) {
        return flag("data", file.toString());
    }

    /** The port to listen on (default 0: a free one). */
    public FakeOptions port(int port) {
        return flag("port", Integer.toString(port));
    }

    /** Any other option of {@code serve}, by its name without dashes: {@code flag("request-log", "5000")}. */
    public FakeOptions flag(String name, String value) {
        flags.put(name, value);
        return this;
    }

    /** Another executable than the one the jar carries (so does {@code $DYNALEASE_FAKE_BIN}). */
    public FakeOptions binary(Path binary) {
        this.binary = binary;
        return this;
    }

    /** How long to wait for the server to name its address (default 30 s). */
    public FakeOptions startTimeout(Duration startTimeout) {
        this.startTimeout = startTimeout;
        return this;
    }

    boolean isManualClock() {
        return manualClock;
    }

    Duration startTimeout() {
        return startTimeout;
    }

    /**
     * The command line: the executable and {@code serve} with these options. The server always
     * gets {@code --stop-on-stdin-close}: its stdin is a pipe from this JVM, so it stops when the
     * JVM exits, even killed.
     */
    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add((binary != null ? binary : Binary.path()).toString());
        command.add("serve");
        command.add("--host");
        command.add("127.0.0.1");
        command.add("--stop-on-stdin-close");
        Map<String, String> all = new LinkedHashMap<>();
        all.put("port", "0");
        all.putAll(flags);
        for (Map.Entry<String, String> flag : all.entrySet()) {
            command.add("--" + flag.getKey());
            command.add(flag.getValue());
        }
        return command;
    }
}
