package dev.dynalease.fake;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A fault rule, as {@link DynaleaseFake#addFault} sends it:
 * {@code FaultRule.of(Fault.THROTTLE).operation("UpdateItem").times(1)}.
 */
public final class FaultRule {
    private final Fault fault;
    private final Map<String, Object> members = new LinkedHashMap<>();

    private FaultRule(Fault fault) {
        this.fault = Objects.requireNonNull(fault, "fault");
    }

    /** A rule of {@code fault} that meets every request until narrowed. */
    public static FaultRule of(Fault fault) {
        return new FaultRule(fault);
    }

    /** Only this operation, such as {@code "PutItem"}. */
    public FaultRule operation(String operation) {
        return with("Operation", operation);
    }

    /** Only requests that name this table. */
    public FaultRule table(String table) {
        return with("Table", table);
    }

    /** Only requests of this account (twelve digits: the access key id that signed them). */
    public FaultRule account(String account) {
        return with("Account", account);
    }

    /** Only requests of this region (the region of their signature). */
    public FaultRule region(String region) {
        return with("Region", region);
    }

    /** The share of matching requests that meet the fault (0 to 1), drawn from the server's seed. */
    public FaultRule probability(double probability) {
        return with("Probability", probability);
    }

    /** Used up after this many faults. */
    public FaultRule times(long times) {
        return with("Times", times);
    }

    /** Lets this many matching requests through first. */
    public FaultRule after(long after) {
        return with("After", after);
    }

    /** For {@link Fault#LATENCY} and {@link Fault#SLOW_RESPONSE}: how long, in milliseconds. */
    public FaultRule delayMs(long delayMs) {
        return detail(Fault.LATENCY, Fault.SLOW_RESPONSE, "DelayMs", delayMs);
    }

    /** For {@link Fault#ERROR}: the error code, such as {@code "AccessDeniedException"}. */
    public FaultRule code(String code) {
        return detail(Fault.ERROR, Fault.ERROR, "Code", code);
    }

    /** For {@link Fault#ERROR}: the error's message. */
    public FaultRule message(String message) {
        return detail(Fault.ERROR, Fault.ERROR, "Message", message);
    }

    /** For {@link Fault#ERROR}: the HTTP status, 400 by default. */
    public FaultRule status(int status) {
        return detail(Fault.ERROR, Fault.ERROR, "Status", status);
    }

    /** For {@link Fault#UNPROCESSED}: how many requests of a batch are processed. */
    public FaultRule processed(long processed) {
        return detail(Fault.UNPROCESSED, Fault.UNPROCESSED, "Processed", processed);
    }

    /**
     * For {@link Fault#STALE_READ}: how far back, in milliseconds, an eventually consistent read may
     * look (at most an hour).
     */
    public FaultRule maxLagMs(long maxLagMs) {
        return detail(Fault.STALE_READ, Fault.STALE_READ, "MaxLagMs", maxLagMs);
    }

    /** The kind of fault. */
    public Fault fault() {
        return fault;
    }

    /**
     * The rule as the control API takes it; an {@link IllegalStateException} if it lacks a member
     * its kind needs.
     */
    public Map<String, Object> toControl() {
        for (String member : fault.needs()) {
            if (!members.containsKey(member)) {
                throw new IllegalStateException("a " + fault.controlName() + " fault needs " + member);
            }
        }
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("Fault", fault.controlName());
        rule.putAll(members);
        return rule;
    }

    private FaultRule with(String member, Object value) {
        members.put(member, Objects.requireNonNull(value, member));
        return this;
    }

    private FaultRule detail(Fault one, Fault other, String member, Object value) {
        if (fault != one && fault != other) {
            throw new IllegalArgumentException("a " + fault.controlName() + " fault does not take " + member);
        }
        return with(member, value);
    }
}
