package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.ElectionTimings;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.Map;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * reactive-controller as the controller side-by-side's contender ({@link ControllerRun}): a
 * {@link Controller} over a ConfigMap informer of the namespace with {@code maxConcurrentReconciles(workers)},
 * its {@link LeaderElector} in the failover mode. The reconcile reads the object from the informer's indexer
 * and merge-patches the annotation without blocking (the controller's workers are slots, not threads).
 */
public final class ReactiveControllerContender {

    /** LIST then watch, as the other contender (JOSDK's fabric8 informers), on the same kube-apiserver. */
    private static final ReflectorOptions LIST = ReflectorOptions.defaults().withStreamingList(false);

    private ReactiveControllerContender() {
    }

    public static void main(String[] args) throws Exception {
        ControllerRun.main("reactive-controller", ReactiveControllerContender::start);
    }

    private static AutoCloseable start(ControllerRun run) {
        KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig());
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(run.namespace());
        SharedInformerFactory factory = SharedInformerFactory.builder(client).reflectorOptions(LIST).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(run.namespace()));
        Controller.Builder<V1ConfigMap> builder = Controller.builder(informer).name("bench")
                .maxConcurrentReconciles(run.workers())
                .reconciler(request -> informer.indexer().getByKey(request.key())
                        .map(map -> reconcile(run, maps, map))
                        .orElse(Mono.just(Result.done())));
        if (run.lease() != null) {
            ResourceClient<V1Lease> leases = client.resource(V1Lease.class).inNamespace(run.namespace());
            builder.leaderElection(LeaderElector.builder(leases, run.lease(), run.identity())
                    .timings(new ElectionTimings(run.leaseDuration(), run.renewDeadline(), run.retryPeriod()))
                    .build());
        }
        Disposable controller = builder.build().start();
        factory.start();
        return () -> {
            controller.dispose();
            factory.shutdown().block(Duration.ofSeconds(10));
            client.close();
        };
    }

    private static Mono<Result> reconcile(ControllerRun run, ResourceClient<V1ConfigMap> maps, V1ConfigMap map) {
        Map<String, String> data = map.getData() == null ? Map.of() : map.getData();
        Map<String, String> annotations = map.getMetadata().getAnnotations();
        String v = data.get("v");
        if (!run.reconciling(v, data.get("ts"), annotations == null ? null : annotations.get(ControllerRun.ANNOTATION))) {
            return Mono.just(Result.done());
        }
        return maps.patch(map.getMetadata().getName(), PatchType.MERGE, ControllerRun.patch(v))
                .doOnNext(patched -> run.wrote(v))
                .thenReturn(Result.done());
    }
}
