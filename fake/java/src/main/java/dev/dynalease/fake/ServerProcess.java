package dev.dynalease.fake;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code dynalease-fake serve} as a child process: started with a pipe on its stdin (so it stops when
 * this JVM exits, even killed with {@code kill -9}), waited for until it names its address, stopped
 * in order by closing that pipe, and by a shutdown hook if the JVM exits first.
 */
final class ServerProcess {
    private static final String ANNOUNCEMENT = "listening on ";

    private final Process process;
    private final List<String> command;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final Thread hook;
    private Thread reader;
    private String endpoint;

    private ServerProcess(Process process, List<String> command) {
        this.process = process;
        this.command = command;
        this.hook = new Thread(this::stopAtExit, "dynalease-fake-stop");
    }

    /** Starts {@code command} and waits until it names its address; a {@link ServerStartException} if not. */
    static ServerProcess start(List<String> command, Duration timeout) {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new ServerStartException("it could not be run: " + e.getMessage(), command, null, "");
        }
        ServerProcess server = new ServerProcess(process, command);
        Object firstLine = new Object();
        Thread reader = new Thread(() -> server.read(firstLine), "dynalease-fake-output");
        reader.setDaemon(true);
        server.reader = reader;
        reader.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (firstLine) {
            while (server.firstLine() == null && reader.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(firstLine, left);
                } catch (InterruptedException e) {
                    server.kill();
                    Thread.currentThread().interrupt();
                    throw new ServerStartException("interrupted while it started", command, null, server.output());
                }
            }
        }
        String line = server.firstLine();
        if (line == null) {
            if (reader.isAlive()) {
                server.kill();
                waitFor(reader);
                throw new ServerStartException("it named no address within " + timeout.toMillis() + " ms (killed)",
                        command, null, server.output());
            }
            // Its output ended: it exits, or has exited.
            server.awaitExit(Duration.ofSeconds(10));
            throw new ServerStartException("it exited before naming its address (exit code " + process.exitValue() + ")",
                    command, process.exitValue(), server.output());
        }
        if (!line.startsWith(ANNOUNCEMENT)) {
            // A server that refuses to start says why (on stderr, merged here) and exits at once.
            server.awaitExit(Duration.ofSeconds(2));
            waitFor(reader);
            if (process.exitValue() != 0) {
                throw new ServerStartException("it exited before naming its address (exit code " + process.exitValue() + ")",
                        command, process.exitValue(), server.output());
            }
            throw new ServerStartException("its first line does not name an address", command,
                    process.exitValue(), server.output());
        }
        server.endpoint = line.substring(ANNOUNCEMENT.length()).strip();
        Runtime.getRuntime().addShutdownHook(server.hook);
        return server;
    }

    /** The URL it named, such as {@code http://127.0.0.1:40123}. */
    String endpoint() {
        return endpoint;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Everything it has printed, stdout and stderr. */
    String output() {
        synchronized (printed) {
            return printed.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * Stops the server as SIGTERM does (the data file written) by closing its stdin; kills it after
     * {@code timeout}. A {@link ServerException} if it exited with an error.
     */
    void stop(Duration timeout) {
        removeHook();
        closeQuietly(process.getOutputStream());
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
                return;
            }
        } catch (InterruptedException e) {
            kill();
            Thread.currentThread().interrupt();
            return;
        }
        if (process.exitValue() != 0) {
            // Its last words are read to their end before they are told.
            waitFor(reader);
            throw new ServerException(process.exitValue(), output());
        }
    }

    /** The shutdown hook: the server stopped as SIGTERM stops it (its data file written), or killed after 5 s. */
    private void stopAtExit() {
        closeQuietly(process.getOutputStream());
        awaitExit(Duration.ofSeconds(5));
    }

    /** Waits for the server to exit on its own, for up to {@code patience}; then kills it. */
    void awaitExit(Duration patience) {
        try {
            if (process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                closeQuietly(process.getOutputStream());
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
    }

    /** Kills the server, if it still runs, and waits for it. */
    void kill() {
        process.destroyForcibly();
        closeQuietly(process.getOutputStream());
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void removeHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook runs already.
        }
    }

    private String firstLine() {
        synchronized (printed) {
            String text = printed.toString(StandardCharsets.UTF_8);
            int newline = text.indexOf('\n');
            return newline < 0 ? null : text.substring(0, newline);
        }
    }

    private void read(Object firstLine) {
        byte[] buffer = new byte[4096];
        try (InputStream in = process.getInputStream()) {
            int count;
            while ((count = in.read(buffer)) >= 0) {
                synchronized (printed) {
                    printed.write(buffer, 0, count);
                }
                synchronized (firstLine) {
                    firstLine.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process is gone.
        } finally {
            synchronized (firstLine) {
                firstLine.notifyAll();
            }
        }
    }

    private static void waitFor(Thread reader) {
        try {
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(OutputStream stream) {
        try {
            stream.close();
        } catch (IOException e) {
            // Already closed by a process that exited.
        }
    }

    List<String> command() {
        return command;
    }
}
