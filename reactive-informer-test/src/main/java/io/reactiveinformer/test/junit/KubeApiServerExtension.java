package io.reactiveinformer.test.junit;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Resolves {@link KubeApiServer} parameters, starting the environment on first use with
 * {@link KubeApiServer#startOrAttach()}, or {@link KubeApiServer#startOrAttachControlPlane()} for a class
 * annotated {@code @KubeApiServerTest(controlPlane = true)} (which say where it comes from), and closing it
 * when the test run ends. Failing to start is an error of every test that asked for the environment, never
 * a skip.
 *
 * <p>Each of the two environments lives in the root {@link ExtensionContext.Store}, so one JVM starts each
 * at most once.
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
        boolean controlPlane = extensionContext.getTestClass()
                .flatMap(type -> AnnotationSupport.findAnnotation(type, KubeApiServerTest.class))
                .map(KubeApiServerTest::controlPlane)
                .orElse(false);
        Supplier<KubeApiServer> start = controlPlane ? KubeApiServer::startOrAttachControlPlane : KubeApiServer::startOrAttach;
        return extensionContext.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(new Key(controlPlane), key -> RunningEnvironment.acquire(start),
                        RunningEnvironment.class)
                .server();
    }

    /** Which of the two environments. */
    private record Key(boolean controlPlane) {
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

        static RunningEnvironment acquire(Supplier<KubeApiServer> start) {
            try {
                return new RunningEnvironment(start.get(), null);
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
