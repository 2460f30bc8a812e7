package dev.dynalease.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server process lives exactly as long as its DynaleaseFake: started on a free loopback port,
 * stopped by close(), never left behind when the JVM is killed, and a server that cannot start
 * says why, in the server's own words.
 */
class ProcessTest {
    @TempDir
    Path folder;

    static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Polls until process {@code pid} is gone; a safety net of 10 s, not a timing claim. */
    static void waitUntilGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (isAlive(pid)) {
            assertTrue(System.nanoTime() < deadline, "process " + pid + " still runs");
            Thread.sleep(5);
        }
    }

    @Test
    void twoServersListenOnFreeLoopbackPortsOfTheirOwnAndStopWithClose() {
        long one;
        long two;
        try (DynaleaseFake first = DynaleaseFake.start(); DynaleaseFake second = DynaleaseFake.start()) {
            assertTrue(first.endpoint().toString().startsWith("http://127.0.0.1:"));
            assertNotEquals(first.endpoint(), second.endpoint());
            one = first.pid();
            two = second.pid();
        }
        assertFalse(isAlive(one));
        assertFalse(isAlive(two));
    }

    @Test
    void aKilledJvmLeavesNoServerBehind() throws Exception {
        Process jvm = new ProcessBuilder(javaCommand(KeepsAServer.class))
                .redirectErrorStream(true)
                .start();
        long server;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            server = Long.parseLong(out.readLine().strip());
            assertTrue(isAlive(server));
            jvm.destroyForcibly(); // kill -9: no shutdown hook runs
            jvm.waitFor();
        }
        waitUntilGone(server);
    }

    @Test
    void aJvmThatEndsWithoutClosingItsFakeStopsTheServerWhichWritesItsDataFile() throws Exception {
        Path data = folder.resolve("kept.json");
        Process jvm = new ProcessBuilder(javaCommand(LeavesAServer.class, data.toString())).redirectErrorStream(true).start();
        long server;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            server = Long.parseLong(out.readLine().strip());
            assertEquals(0, jvm.waitFor());
        }
        waitUntilGone(server);
        assertTrue(Files.readString(data).contains("\"Tables\""), "the shutdown hook let the server write its data file");
    }

    /** A JVM that starts a server with a data file, names its process id, and ends without closing it. */
    public static final class LeavesAServer {
        public static void main(String[] args) {
            DynaleaseFake fake = DynaleaseFake.start(FakeOptions.defaults().data(Path.of(args[0])));
            System.out.println(fake.pid());
            System.out.flush();
        }
    }

    /** {@code java} running {@code main} of {@code type} with this package and Jackson on its class path. */
    static List<String> javaCommand(Class<?> type, String... args) throws Exception {
        StringBuilder classPath = new StringBuilder();
        for (Class<?> on : List.of(type, DynaleaseFake.class, com.fasterxml.jackson.databind.ObjectMapper.class,
                com.fasterxml.jackson.core.JsonFactory.class, com.fasterxml.jackson.annotation.JsonProperty.class)) {
            classPath.append(Path.of(on.getProtectionDomain().getCodeSource().getLocation().toURI())).append(':');
        }
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath.toString(), type.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** A JVM that starts a server, names its process id, and waits to be killed. */
    public static final class KeepsAServer {
        public static void main(String[] args) throws Exception {
            DynaleaseFake fake = DynaleaseFake.start();
            System.out.println(fake.pid());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void aPortThatIsTakenGivesTheServersOwnWordsAndItsExitCode() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            ServerStartException error = assertThrows(ServerStartException.class,
                    () -> DynaleaseFake.start(FakeOptions.defaults().port(port)));
            assertEquals(1, error.exitCode());
            assertTrue(error.output().contains("dynalease-fake: cannot listen on 127.0.0.1:" + port), error.output());
            assertTrue(error.getMessage().contains("(os error 98)"), error.getMessage()); // EADDRINUSE
            assertTrue(error.getMessage().contains("it exited before naming its address (exit code 1)"), error.getMessage());
        }
    }

    @Test
    void aDataFileThatDoesNotReadIsNamedWithItsLineAndLeftAsItIs() throws IOException {
        Path data = folder.resolve("broken.json");
        String broken = "{\"Tables\": [\n  {\"TableName\": \"Shop\",}\n]}\n";
        Files.writeString(data, broken);
        ServerStartException error = assertThrows(ServerStartException.class,
                () -> DynaleaseFake.start(FakeOptions.defaults().data(data)));
        assertTrue(error.getMessage().contains("cannot load the data file " + data), error.getMessage());
        assertTrue(error.getMessage().contains("line 2"), error.getMessage());
        assertEquals(broken, Files.readString(data));
    }

    @Test
    void anExecutableThatIsNotTheServerIsNamedWithWhatItPrinted() throws IOException {
        Path impostor = script("impostor", "echo hello from elsewhere");
        ServerStartException error = assertThrows(ServerStartException.class,
                () -> DynaleaseFake.start(FakeOptions.defaults().binary(impostor)));
        assertTrue(error.getMessage().contains("its first line does not name an address"), error.getMessage());
        assertEquals("hello from elsewhere\n", error.output());
    }

    @Test
    void aServerThatNamesNoAddressInTimeIsKilledNotWaitedFor() throws Exception {
        Path pidFile = folder.resolve("silent.pid");
        Path silent = script("silent", "echo $$ > " + pidFile + "\nexec sleep 60");
        ServerStartException error = assertThrows(ServerStartException.class,
                () -> DynaleaseFake.start(FakeOptions.defaults().binary(silent).startTimeout(Duration.ofMillis(300))));
        assertTrue(error.getMessage().contains("it named no address within 300 ms (killed)"), error.getMessage());
        assertNull(error.exitCode());
        waitUntilGone(Long.parseLong(Files.readString(pidFile).strip()));
    }

    @Test
    void aPlatformTheJarCarriesNoServerForGetsAnErrorThatSaysWhatToDo() {
        BinaryNotFoundException elsewhere = assertThrows(BinaryNotFoundException.class,
                () -> Binary.path("Mac OS X", "aarch64", Map.of()));
        assertTrue(elsewhere.getMessage().startsWith("dynalease-fake carries its server for linux-amd64 only, and this is"
                + " mac_os_x-aarch64: build the server from the repository"), elsewhere.getMessage());
        Path none = folder.resolve("none");
        BinaryNotFoundException named = assertThrows(BinaryNotFoundException.class,
                () -> Binary.path("Linux", "amd64", Map.of("DYNALEASE_FAKE_BIN", none.toString())));
        assertEquals("$DYNALEASE_FAKE_BIN names " + none + ", which is not an executable file", named.getMessage());
        assertTrue(Files.isExecutable(Binary.path("Linux", "amd64", Map.of())));
    }

    @Test
    void aControlCallTheServerRefusesRaisesItsStatusAndItsWords() {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        try (DynaleaseFake fake = DynaleaseFake.start(FakeOptions.defaults().manualClock().startTime(start))) {
            ControlException back = assertThrows(ControlException.class, () -> fake.setTime(Instant.parse("2025-01-01T00:00:00Z")));
            assertEquals(400, back.status());
            assertTrue(back.serverMessage().contains("before"), back.serverMessage());
            assertEquals("400 BadRequest: " + back.serverMessage(), back.getMessage());
            assertEquals(404, assertThrows(ControlException.class, () -> fake.removeFault(999)).status());
            ControlException noData = assertThrows(ControlException.class, fake::save);
            assertEquals(409, noData.status());
            assertEquals("Conflict", noData.error());
            assertEquals(start, fake.now());
        }
    }

    @Test
    void aServerThatCannotWriteItsDataFileWhenItStopsRaisesWhatItPrinted() throws IOException {
        Path place = Files.createDirectory(folder.resolve("gone"));
        DynaleaseFake fake = DynaleaseFake.start(FakeOptions.defaults().data(place.resolve("t.json")));
        Files.delete(place);
        ServerException error = assertThrows(ServerException.class, fake::close);
        assertEquals(1, error.exitCode());
        assertTrue(error.getMessage().contains("cannot write the data file"), error.getMessage());
        assertFalse(fake.isRunning());
    }

    private Path script(String name, String body) throws IOException {
        Path file = folder.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void optionsAreFlagsOfServe() {
        List<String> command = FakeOptions.defaults().binary(Path.of("/bin/fake")).manualClock().seed(3)
                .flag("request-log", "5").command();
        assertEquals(List.of("/bin/fake", "serve", "--host", "127.0.0.1", "--stop-on-stdin-close", "--port", "0",
                "--clock", "manual", "--seed", "3", "--request-log", "5"), command);
    }
}
