package io.reactiveinformer.e2e.client;

import java.nio.file.Files;
import java.nio.file.Path;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;

/**
 * The test kit's simulated API server. It has neither TLS nor RBAC: the restricted identity is a
 * second server on the same state whose fault plan forbids every resource request.
 */
final class SimulatedBackend implements Backend {

    /** The definitions the real backend installs, read from {@code testenv/crds/} as the real backend reads them. */
    private final ClusterState state = ClusterState.builder().customResource(testenvFile("crds/widgets.yaml"))
            .customResource(testenvFile("crds/gadgets.yaml")).requireNamespaces().build();
    private final int port;
    private final KubernetesClient admin;
    private final SimulatedApiServer forbidding;
    private final KubernetesClient restricted;
    private SimulatedApiServer server;

    SimulatedBackend() {
        server = SimulatedApiServer.start(state);
        port = server.port();
        admin = server.newClient();
        forbidding = SimulatedApiServer.start(state);
        forbidding.faults().always(RequestInfo.any(), Fault.forbidden());
        restricted = forbidding.newClient();
    }

    @Override
    public KubernetesClient admin() {
        return admin;
    }

    @Override
    public KubernetesClient restricted() {
        return restricted;
    }

    @Override
    @SuppressWarnings("unchecked")
    public ResourceType<DynamicObject> widgets() {
        return (ResourceType<DynamicObject>) state.resource("testenv.reactiveinformer.io", "v1", "widgets").orElseThrow();
    }

    @Override
    @SuppressWarnings("unchecked")
    public ResourceType<DynamicObject> gadgets() {
        return (ResourceType<DynamicObject>) state.resource("testenv.reactiveinformer.io", "v1", "gadgets").orElseThrow();
    }

    /** A file of the repository's {@code testenv/} directory ({@code -Dreactive-informer.testenv}, or found upwards). */
    private static Path testenvFile(String relative) {
        String configured = System.getProperty(KubeApiServer.TESTENV_DIR_PROPERTY);
        if (configured != null) {
            return Path.of(configured).resolve(relative);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("testenv").resolve(relative);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("no testenv/" + relative + " above " + Path.of("").toAbsolutePath());
    }

    /** Like an etcd compaction at the latest revision: a watch from the latest version still works. */
    @Override
    public void compact() {
        state.compact();
    }

    @Override
    public void stopApiServer() {
        server.close();
    }

    @Override
    public void startApiServer() {
        server = SimulatedApiServer.start(state, port);
    }

    @Override
    public void close() {
        admin.close();
        restricted.close();
        server.close();
        forbidding.close();
    }

    @Override
    public String toString() {
        return "simulated " + server;
    }
}
