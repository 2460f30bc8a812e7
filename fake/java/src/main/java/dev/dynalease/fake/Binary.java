package dev.dynalease.fake;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Map;

/**
 * Where the {@code dynalease-fake} executable is: the one {@code $DYNALEASE_FAKE_BIN} names, or the
 * one this jar carries for Linux x86-64, written once per JVM to a temporary file.
 */
public final class Binary {
    /** The environment variable that names another executable than the one the jar carries. */
    public static final String ENVIRONMENT_VARIABLE = "DYNALEASE_FAKE_BIN";

    /** The platform (as {@code os.name}-{@code os.arch}, lowered) whose server the jar carries. */
    public static final String CARRIED_PLATFORM = "linux-amd64";

    private static final String RESOURCE = "/dev/dynalease/fake/linux-x64/dynalease-fake";
    private static Path extracted;

    private Binary() {}

    /**
     * The path of the executable for this JVM's platform and environment. Throws a {@link
     * BinaryNotFoundException} that says why and what to do, on a platform the jar carries no
     * server for too.
     */
    public static Path path() {
        return path(System.getProperty("os.name"), System.getProperty("os.arch"), System.getenv());
    }

    /** The path of the executable for the platform {@code osName}/{@code osArch} and {@code environment}. */
    public static Path path(String osName, String osArch, Map<String, String> environment) {
        String explicit = environment.get(ENVIRONMENT_VARIABLE);
        if (explicit != null && !explicit.isEmpty()) {
            Path named = Path.of(explicit);
            if (!Files.isRegularFile(named) || !Files.isExecutable(named)) {
                throw new BinaryNotFoundException(
                        "$" + ENVIRONMENT_VARIABLE + " names " + explicit + ", which is not an executable file");
            }
            return named;
        }
        String platform = (osName + "-" + osArch).toLowerCase(Locale.ROOT).replace(' ', '_');
        if (!platform.equals(CARRIED_PLATFORM)) {
            throw new BinaryNotFoundException("dynalease-fake carries its server for " + CARRIED_PLATFORM
                    + " only, and this is " + platform + ": build the server from the repository (cargo build"
                    + " --release -p dynalease-fake --bin dynalease-fake) and set $" + ENVIRONMENT_VARIABLE
                    + " to target/release/dynalease-fake");
        }
        return carried();
    }

    private static synchronized Path carried() {
        if (extracted != null && Files.isExecutable(extracted)) {
            return extracted;
        }
        try (InputStream in = Binary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new BinaryNotFoundException("the jar has no server at " + RESOURCE
                        + ": it was built without one; set $" + ENVIRONMENT_VARIABLE + " to a dynalease-fake executable");
            }
            Path folder = Files.createTempDirectory("dynalease-fake-");
            Path file = folder.resolve("dynalease-fake");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            if (!file.toFile().setExecutable(true, true)) {
                throw new BinaryNotFoundException("cannot make " + file + " executable");
            }
            file.toFile().deleteOnExit();
            folder.toFile().deleteOnExit();
            extracted = file;
            return file;
        } catch (IOException e) {
            throw new BinaryNotFoundException("cannot write the server the jar carries to a temporary file: " + e);
        }
    }
}
