package io.reactiveinformer.examples.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's headless Chromium and its WebDriver, installed by the test set-up when missing (with
 * apt-get; the tests run as root on the project's machines). Never a browser download of Selenium's own.
 */
final class Chromium {

    static final Path BROWSER = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path LOG = Path.of("target", "apt-get.log");

    private Chromium() {
    }

    /** Installs {@code chromium} and {@code chromium-driver} unless both are there; fails the test if it cannot. */
    static synchronized void ensureInstalled() throws IOException, InterruptedException {
        if (Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER)) {
            return;
        }
        System.out.println("chromium or chromedriver missing: installing Debian's chromium and chromium-driver with apt-get"
                + " (output in " + LOG.toAbsolutePath() + ")");
        run(List.of("apt-get", "update", "-qq"));
        run(List.of("apt-get", "install", "-y", "-qq", "chromium", "chromium-driver"));
        if (!Files.isExecutable(BROWSER) || !Files.isExecutable(DRIVER)) {
            throw new IllegalStateException("apt-get ran but " + BROWSER + " or " + DRIVER + " is still missing");
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        // to a file: output written to the forked test JVM's own stdout would corrupt Surefire's channel
        Files.createDirectories(LOG.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(LOG.toFile()));
        builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process process = builder.start();
        if (!process.waitFor(15, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within 15 minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed with exit code " + process.exitValue()
                    + " (installing needs root and Debian's package archive); its output is in " + LOG.toAbsolutePath());
        }
    }
}
