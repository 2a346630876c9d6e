package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeCondition;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.watch.ListerWatcher;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/** The environment the tests of this package get runs a control plane, with kwok's fake nodes Ready. */
@KubeApiServerTest(controlPlane = true)
class ControlPlaneSmokeTest {

    @Test
    void anInformerSeesTheFakeNodesReady(KubeApiServer env) {
        assertThat(env.hasControlPlane()).isTrue();
        try (KubernetesClient admin = ControlPlane.admin(env)) {
            SharedIndexInformer<V1Node> nodes = SharedIndexInformer.builder(
                    InformerSpec.of(V1Node.class).withLabelSelector("type=kwok"),
                    ListerWatcher.of(admin.resource(V1Node.class).withLabelSelector("type=kwok"))).build();
            Disposable running = nodes.start();
            try {
                StepVerifier.create(nodes.hasSynced()).expectComplete().verify(CALL);

                assertThat(nodes.indexer().list()).hasSizeGreaterThanOrEqualTo(1).allSatisfy(node ->
                        assertThat(node.getStatus().getConditions()).filteredOn(c -> "Ready".equals(c.getType()))
                                .extracting(V1NodeCondition::getStatus).containsExactly("True"));
            } finally {
                running.dispose();
            }
        }
    }
}
