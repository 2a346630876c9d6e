package io.reactiveinformer.e2e.client;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;

/**
 * The test kit's simulated API server. It has neither TLS nor RBAC: the restricted identity is a
 * second server on the same state whose fault plan forbids every resource request.
 */
final class SimulatedBackend implements Backend {

    static final ResourceType<DynamicObject> WIDGETS =
            ResourceType.dynamic("testenv.reactiveinformer.io", "v1", "widgets", "Widget", true);

    private final ClusterState state = ClusterState.builder().resource(WIDGETS).requireNamespaces().build();
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
    public ResourceType<DynamicObject> widgets() {
        return WIDGETS;
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
