package dev.dynalease.fake;

/**
 * A control request the server refused: its HTTP status, the kind of error and the server's own
 * message, such as {@code 400 BadRequest: the body is not what this endpoint takes: ...}.
 */
public final class ControlException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String error;
    private final String serverMessage;

    ControlException(int status, String error, String serverMessage) {
        super(status + " " + error + ": " + serverMessage);
        this.status = status;
        this.error = error;
        this.serverMessage = serverMessage;
    }

    /** The HTTP status of the answer (400, 404, 405, 409...). */
    public int status() {
        return status;
    }

    /** The {@code Error} member of the answer ({@code BadRequest}, {@code NotFound}...). */
    public String error() {
        return error;
    }

    /** The {@code Message} member of the answer: the server's words. */
    public String serverMessage() {
        return serverMessage;
    }
}
