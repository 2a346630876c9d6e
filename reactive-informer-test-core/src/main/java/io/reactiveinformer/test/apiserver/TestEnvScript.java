package io.reactiveinformer.test.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code testenv/testenv.sh}, which owns the processes: this class only starts it with a bounded wait
 * and turns a failure into an exception carrying the script's diagnostics (its stderr ends with the tail
 * of the failing process's log).
 */
final class TestEnvScript {

    static final String SCRIPT_NAME = "testenv.sh";

    private final Path script;

    private TestEnvScript(Path script) {
        this.script = script;
    }

    static TestEnvScript locate(Path testenvDirectory) {
        return at(testenvDirectory.resolve(SCRIPT_NAME));
    }

    static TestEnvScript at(Path script) {
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException(script + " does not exist");
        }
        return new TestEnvScript(script.toAbsolutePath());
    }

    Path testenvDirectory() {
        return script.getParent();
    }

    /**
     * Starts an environment in {@code dir}, with the rest of a control plane when {@code controlPlane}. The
     * script also leaves a watchdog that stops it should this JVM die without closing it.
     */
    void start(Path dir, Duration timeout, boolean controlPlane) {
        run("start", dir, timeout, true, controlPlane ? new String[] {"--control-plane"} : new String[0]);
    }

    /**
     * Runs a lifecycle command on the environment in {@code dir}, with the command's further arguments,
     * and returns the last line it printed.
     */
    String run(String command, Path dir, Duration timeout, String... arguments) {
        return run(command, dir, timeout, false, arguments);
    }

    private String run(String command, Path dir, Duration timeout, boolean watchThisJvm, String... arguments) {
        Path out = dir.resolve("last-" + command + ".out");
        Path err = dir.resolve("last-" + command + ".err");
        List<String> commandLine = new ArrayList<>(List.of("bash", script.toString(), command, dir.toString()));
        commandLine.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(commandLine)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        if (watchThisJvm) {
            builder.environment().put("TESTENV_OWNER_PID", Long.toString(ProcessHandle.current().pid()));
        }
        try {
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw failure(command, "did not finish within " + timeout, err);
            }
            if (process.exitValue() != 0) {
                throw failure(command, "failed with exit code " + process.exitValue(), err);
            }
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
        }
        catch (IOException e) {
            throw new UncheckedIOException("could not run " + script + " " + command, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + script + " " + command, e);
        }
    }

    private IllegalStateException failure(String command, String what, Path err) {
        String diagnostics;
        try {
            diagnostics = Files.readString(err, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            diagnostics = "(no output: " + e + ")";
        }
        return new IllegalStateException(SCRIPT_NAME + " " + command + " " + what + ":\n" + diagnostics);
    }
}
