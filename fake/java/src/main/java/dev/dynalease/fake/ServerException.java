package dev.dynalease.fake;

/** The server stopped with an error (for example, its data file could not be written). */
public final class ServerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;
    private final String output;

    ServerException(int exitCode, String output) {
        super("dynalease-fake serve exited with code " + exitCode + ": "
                + (output.isBlank() ? "(no output)" : output.strip()));
        this.exitCode = exitCode;
        this.output = output;
    }

    /** Its exit code. */
    public int exitCode() {
        return exitCode;
    }

    /** Everything it printed. */
    public String output() {
        return output;
    }
}
