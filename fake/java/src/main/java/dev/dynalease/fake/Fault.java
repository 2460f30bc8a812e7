package dev.dynalease.fake;

import java.util.List;

/** The kinds of fault a rule gives, as the control API names them, and the members each needs. */
public enum Fault {
    /** ProvisionedThroughputExceededException. */
    THROTTLE("Throttle"),
    /** ThrottlingException. */
    THROTTLING_EXCEPTION("ThrottlingException"),
    /** InternalServerError, status 500. */
    INTERNAL_SERVER_ERROR("InternalServerError"),
    /** The request is applied, its answer lost: the connection closes. */
    LOST_RESPONSE("LostResponse"),
    /** ResourceNotFoundException. */
    RESOURCE_NOT_FOUND("ResourceNotFound"),
    /** The answer is delayed by {@code DelayMs} of real time. */
    LATENCY("Latency", "DelayMs"),
    /** The answer's body is sent slowly, over {@code DelayMs} of real time. */
    SLOW_RESPONSE("SlowResponse", "DelayMs"),
    /** Any error DynamoDB sends: {@code Code}, and {@code Message} and {@code Status} (400 by default). */
    ERROR("Error", "Code"),
    /** Only {@code Processed} requests of a batch are processed; the rest come back unprocessed. */
    UNPROCESSED("Unprocessed", "Processed"),
    /**
     * The writes of a global table stop reaching the replicas the rule is narrowed to (by region
     * and table) until the rule is removed, when they arrive in order.
     */
    STALL_REPLICATION("StallReplication"),
    /**
     * Eventually consistent reads see the tables, and their indexes, as they were at one instant up
     * to {@code MaxLagMs} ago (at most an hour); strongly consistent reads and transactions never do.
     */
    STALE_READ("StaleRead", "MaxLagMs");

    private final String controlName;
    private final List<String> needs;

    Fault(String controlName, String... needs) {
        this.controlName = controlName;
        this.needs = List.of(needs);
    }

    /** The name the control API gives this kind ({@code Throttle}, {@code LostResponse}...). */
    public String controlName() {
        return controlName;
    }

    /**
     * The members a rule of this kind needs ({@code DelayMs}, {@code Code}, {@code Processed},
     * {@code MaxLagMs}).
     */
    public List<String> needs() {
        return needs;
    }
}
