package io.reactiveinformer.test.junit;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Resolves {@link KubeApiServer} parameters, starting the environment on first use with
 * {@link KubeApiServer#startOrAttach()} (which says where it comes from) and closing it when the test
 * run ends. Failing to start is an error of every test that asked for the environment, never a skip.
 *
 * <p>The environment lives in the root {@link ExtensionContext.Store}, so one JVM starts it once.
 */
public final class KubeApiServerExtension implements ParameterResolver {

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
    private record RunningEnvironment(KubeApiServer environment, RuntimeException failure)
            implements ExtensionContext.Store.CloseableResource {

        KubeApiServer server() {
            if (failure != null) {
                throw new ParameterResolutionException("Could not provide a kube-apiserver: " + failure.getMessage(),
                        failure);
            }
            return environment;
        }

        static RunningEnvironment acquire() {
            try {
                return new RunningEnvironment(KubeApiServer.startOrAttach(), null);
            }
            catch (RuntimeException e) {
                return new RunningEnvironment(null, e);
            }
        }

        @Override
        public void close() {
            if (environment != null) {
                environment.close();
            }
        }
    }
}
