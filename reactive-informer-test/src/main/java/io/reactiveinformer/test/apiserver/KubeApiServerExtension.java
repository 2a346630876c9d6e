package io.reactiveinformer.test.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link KubeApiServer} parameters, starting the environment on first use.
 *
 * <p>Where the environment comes from, in order:
 * <ol>
 *   <li>the environment variable {@value #KUBECONFIG_ENV} (or system property {@value #KUBECONFIG_PROPERTY})
 *       naming the {@code kubeconfig} of an environment started with {@code testenv/testenv.sh start}: it is
 *       reused and left running;</li>
 *   <li>otherwise {@code testenv/testenv.sh start} is run (building kube-apiserver and etcd first if they are
 *       not cached, which takes minutes once), and the environment is stopped when the test run ends.
 *       {@code testenv/} is the directory named by the system property {@value #TESTENV_DIR_PROPERTY}, or
 *       found by walking up from the working directory.</li>
 * </ol>
 * Failing to start is an error of every test that asked for the environment, never a skip.
 *
 * <p>The environment lives in the root {@link ExtensionContext.Store}, so one JVM starts it once.
 */
public final class KubeApiServerExtension implements ParameterResolver {

    /** Environment variable naming the kubeconfig of a running environment to reuse. */
    public static final String KUBECONFIG_ENV = "REACTIVE_INFORMER_KUBECONFIG";
    /** System property with the same meaning as {@link #KUBECONFIG_ENV}; wins over it. */
    public static final String KUBECONFIG_PROPERTY = "reactive-informer.kubeconfig";
    /** System property naming the {@code testenv/} directory. */
    public static final String TESTENV_DIR_PROPERTY = "reactive-informer.testenv";

    /** Bounds a start that first has to build both binaries (a cold build takes several minutes). */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(60);

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(KubeApiServerExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == KubeApiServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return extensionContext.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(RunningEnvironment.class, key -> RunningEnvironment.acquire(),
                        RunningEnvironment.class)
                .server();
    }

    /**
     * What the root store holds; JUnit closes it when the test run ends. A failed start is kept too, so
     * that the next test class fails at once with the same cause instead of trying again.
     */
    private record RunningEnvironment(KubeApiServer environment, boolean owned, RuntimeException failure)
            implements AutoCloseable {

        KubeApiServer server() {
            if (failure != null) {
                throw new ParameterResolutionException("Could not provide a kube-apiserver: " + failure.getMessage(),
                        failure);
            }
            return environment;
        }

        static RunningEnvironment acquire() {
            try {
                String kubeconfig = System.getProperty(KUBECONFIG_PROPERTY, System.getenv(KUBECONFIG_ENV));
                if (kubeconfig != null && !kubeconfig.isBlank()) {
                    return new RunningEnvironment(
                            KubeApiServer.attach(Path.of(kubeconfig).toAbsolutePath().getParent()), false, null);
                }
                TestEnvScript script = TestEnvScript.locate(testenvDirectory());
                Path dir = Files.createTempDirectory("reactive-informer-testenv");
                script.start(dir, START_TIMEOUT);
                return new RunningEnvironment(KubeApiServer.attach(dir), true, null);
            }
            catch (IOException e) {
                return new RunningEnvironment(null, false, new UncheckedIOException(e));
            }
            catch (RuntimeException e) {
                return new RunningEnvironment(null, false, e);
            }
        }

        private static Path testenvDirectory() {
            String configured = System.getProperty(TESTENV_DIR_PROPERTY);
            if (configured != null && !configured.isBlank()) {
                return Path.of(configured).toAbsolutePath();
            }
            for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
                if (Files.isRegularFile(dir.resolve("testenv").resolve(TestEnvScript.SCRIPT_NAME))) {
                    return dir.resolve("testenv");
                }
            }
            throw new IllegalStateException("testenv/" + TestEnvScript.SCRIPT_NAME + " not found above "
                    + Path.of("").toAbsolutePath() + "; set -D" + TESTENV_DIR_PROPERTY + "=<dir> or "
                    + KUBECONFIG_ENV + "=<kubeconfig of a running environment>");
        }

        @Override
        public void close() {
            if (owned) {
                environment.stop();
            }
        }
    }
}
