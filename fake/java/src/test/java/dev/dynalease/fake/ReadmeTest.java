package dev.dynalease.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The complete test the README starts with is {@code sdk/TokensTest.java}, word for word (less its
 * package line), so that Maven compiles and runs what a reader pastes.
 */
class ReadmeTest {
    @Test
    void theReadmesFirstTestIsTokensTestWordForWord() throws IOException {
        Path project = Path.of(System.getProperty("dynalease.fake.java", "."));
        String readme = Files.readString(project.resolve("README.md"));
        int start = readme.indexOf("```java\n");
        assertTrue(start >= 0, "the README has a Java block");
        String block = readme.substring(start + "```java\n".length(), readme.indexOf("```", start + 8));
        String test = Files.readString(project.resolve("src/test/java/dev/dynalease/fake/sdk/TokensTest.java"));
        assertEquals("package dev.dynalease.fake.sdk;\n\n" + block, test);
    }
}
