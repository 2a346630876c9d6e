package io.reactiveinformer.test.junit;

import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a fresh {@link SimulatedApiServer} on 127.0.0.1 for every test and hands the test, as
 * method parameters, the {@link SimulatedApiServer} (to drive state and faults), its
 * {@link ClusterState}, a {@link ClientConfig} for it and a {@link KubernetesClient} on it. The
 * server and the client are closed after the test.
 *
 * <pre>{@code
 * @ExtendWith(SimulatedApiServerExtension.class)
 * class MyTest {
 *     @Test
 *     void works(SimulatedApiServer server, KubernetesClient client) { ... }
 * }
 * }</pre>
 *
 * Or, to add resources or change the history window, register a configured instance:
 * {@code @RegisterExtension static SimulatedApiServerExtension api = new SimulatedApiServerExtension().resource(...)}.
 * Each test gets its own server, so tests may run in parallel.
 */
public final class SimulatedApiServerExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(SimulatedApiServerExtension.class);

    private final List<ResourceType<?>> resources = new ArrayList<>();
    private int historyLimit = 1000;
    private long seed;

    public SimulatedApiServerExtension() {
    }

    /** Registers another resource (e.g. a custom resource) in every test's server. */
    public SimulatedApiServerExtension resource(ResourceType<?> type) {
        resources.add(type);
        return this;
    }

    /** The history window of every test's server. */
    public SimulatedApiServerExtension historyLimit(int historyLimit) {
        this.historyLimit = historyLimit;
        return this;
    }

    public SimulatedApiServerExtension seed(long seed) {
        this.seed = seed;
        return this;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ClusterState.Builder builder = ClusterState.builder().historyLimit(historyLimit).seed(seed);
        resources.forEach(builder::resource);
        SimulatedApiServer server = SimulatedApiServer.start(builder.build());
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        store.put(SimulatedApiServer.class, server);
        store.put(KubernetesClient.class, server.newClient());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        KubernetesClient client = store.remove(KubernetesClient.class, KubernetesClient.class);
        SimulatedApiServer server = store.remove(SimulatedApiServer.class, SimulatedApiServer.class);
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == SimulatedApiServer.class || type == ClusterState.class || type == ClientConfig.class
                || type == KubernetesClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        SimulatedApiServer server = store.get(SimulatedApiServer.class, SimulatedApiServer.class);
        if (server == null) {
            throw new org.junit.jupiter.api.extension.ParameterResolutionException(
                    "the simulated API server is only available to test methods");
        }
        Class<?> type = parameter.getParameter().getType();
        if (type == SimulatedApiServer.class) {
            return server;
        }
        if (type == ClusterState.class) {
            return server.state();
        }
        if (type == ClientConfig.class) {
            return server.clientConfig();
        }
        return store.get(KubernetesClient.class, KubernetesClient.class);
    }
}
