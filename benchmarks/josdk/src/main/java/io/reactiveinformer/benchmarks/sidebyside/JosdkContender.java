package io.reactiveinformer.benchmarks.sidebyside;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.Map;

/**
 * The Java Operator SDK 5.3.2 (on fabric8 7.6.1, Vert.x) as the controller side-by-side's contender
 * ({@link ControllerRun}): one {@link Operator} with one ConfigMap reconciler in the namespace,
 * {@code withConcurrentReconciliationThreads(workers)}, JOSDK's {@code LeaderElectionConfiguration} in the
 * failover mode. The reconciler gets the cached object from JOSDK and writes the same JSON merge patch as
 * the other contender through the operator's client (a patch of its own rather than
 * {@code UpdateControl.patchResource}, which would send a server-side apply: the same write on both sides).
 */
public final class JosdkContender {

    private JosdkContender() {
    }

    public static void main(String[] args) throws Exception {
        ControllerRun.main("josdk", run -> {
            KubernetesClient client = new KubernetesClientBuilder().build();
            Operator operator = new Operator(o -> {
                o.withKubernetesClient(client).withConcurrentReconciliationThreads(run.workers());
                if (run.lease() != null) {
                    o.withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
                            .aLeaderElectionConfiguration(run.lease())
                            .withLeaseNamespace(run.namespace())
                            .withIdentity(run.identity())
                            .withLeaseDuration(run.leaseDuration())
                            .withRenewDeadline(run.renewDeadline())
                            .withRetryPeriod(run.retryPeriod())
                            .build());
                }
            });
            operator.register(new Annotator(run), c -> c.settingNamespace(run.namespace()));
            operator.start();
            return operator::stop;
        });
    }

    /** The reconcile: JOSDK hands it the object from its cache. */
    private static final class Annotator implements Reconciler<ConfigMap> {
        private final ControllerRun run;

        Annotator(ControllerRun run) {
            this.run = run;
        }

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap map, Context<ConfigMap> context) {
            Map<String, String> data = map.getData() == null ? Map.of() : map.getData();
            Map<String, String> annotations = map.getMetadata().getAnnotations();
            String v = data.get("v");
            if (run.reconciling(v, data.get("ts"), annotations == null ? null : annotations.get(ControllerRun.ANNOTATION))) {
                context.getClient().configMaps().inNamespace(map.getMetadata().getNamespace())
                        .withName(map.getMetadata().getName())
                        .patch(PatchContext.of(PatchType.JSON_MERGE), ControllerRun.patch(v));
                run.wrote(v);
            }
            return UpdateControl.noUpdate();
        }
    }
}
