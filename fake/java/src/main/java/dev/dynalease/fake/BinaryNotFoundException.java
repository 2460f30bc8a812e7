package dev.dynalease.fake;

/** The server executable cannot be found or run: the message says where it looked and what to do. */
public final class BinaryNotFoundException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BinaryNotFoundException(String message) {
        super(message);
    }
}
