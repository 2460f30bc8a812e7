package dev.dynalease.fake;

import java.util.List;

/**
 * The server did not start: why, the command, its exit code (empty if it was still running when it
 * was given up on, and killed) and everything it printed, in the message too.
 */
public final class ServerStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> command;
    private final Integer exitCode;
    private final String output;

    ServerStartException(String reason, List<String> command, Integer exitCode, String output) {
        super("dynalease-fake serve did not start: " + reason + "\ncommand: " + String.join(" ", command)
                + "\nit printed: " + (output.isBlank() ? "(nothing)" : output.strip()));
        this.command = List.copyOf(command);
        this.exitCode = exitCode;
        this.output = output;
    }

    /** The command line that was run. */
    public List<String> command() {
        return command;
    }

    /** Its exit code, or {@code null} if it was killed while it still ran. */
    public Integer exitCode() {
        return exitCode;
    }

    /** Everything it printed, stdout and stderr. */
    public String output() {
        return output;
    }
}
