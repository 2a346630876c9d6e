package io.reactiveinformer.examples;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.leaderelection.ShardElector;
import io.reactiveinformer.test.Churn;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;

/**
 * A controller meant to run as several replicas: it keeps the annotation
 * {@code example.reactiveinformer.io/checksum} of every ConfigMap in one namespace equal to a hash of its
 * data and labels, either with leader election (one replica works, the others stand by) or sharded (the replicas split
 * the ConfigMaps between them, each caching only its share: server-side shard selectors on the uid, filtered
 * locally where the server ignores them).
 *
 * <pre>
 * ReplicatedChecksums leader|shards [identity] [namespace] [duration]
 * </pre>
 *
 * With {@code $KUBECONFIG} set it runs one replica named {@code identity} against that cluster (start it
 * three times with different identities; the README shows how). Without it, it starts an embedded simulated
 * API server with churning ConfigMaps and runs three replicas in this process. Each replica prints what it
 * reconciles; it stops after {@code duration} (ISO-8601, e.g. {@code PT60S}) or on Ctrl-C, releasing its
 * Leases.
 */
public final class ReplicatedChecksums {

    static final String ANNOTATION = "example.reactiveinformer.io/checksum";

    private ReplicatedChecksums() {
    }

    public static void main(String[] args) throws InterruptedException {
        boolean sharded = args.length > 0 && args[0].equals("shards");
        String namespace = args.length > 2 ? args[2] : "default";
        Duration duration = args.length > 3 ? Duration.parse(args[3]) : null;
        Disposable.Composite running = Disposables.composite();
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            String identity = args.length > 1 ? args[1] : "replica-" + ProcessHandle.current().pid();
            KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig());
            System.out.println(identity + ": " + (sharded ? "sharded" : "leader-elected") + " on " + client.config().server()
                    + ", namespace " + namespace);
            running.add(replica(client, namespace, identity, sharded));
        } else {
            ClusterState state = ClusterState.create();
            SimulatedApiServer server = SimulatedApiServer.start(state);
            running.add(server::close);
            Churn churn = new Churn(state, ResourceType.of(V1ConfigMap.class), namespace, 7);
            churn.run(20);
            running.add(churn.every(Duration.ofMillis(200), Integer.MAX_VALUE).subscribe());
            System.out.println("no $KUBECONFIG: three " + (sharded ? "sharded" : "leader-elected")
                    + " replicas on an embedded simulated API server at " + server.url());
            for (int i = 0; i < 3; i++) {
                running.add(replica(server.newClient(), namespace, "replica-" + i, sharded));
            }
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.dispose();
            stop.countDown();
        }));
        if (duration == null) {
            stop.await();
        } else if (!stop.await(duration.toMillis(), TimeUnit.MILLISECONDS)) {
            running.dispose();
        }
    }

    /**
     * One replica: its own informer (leader-elected, it caches every ConfigMap; sharded, only those of the shards
     * it holds), controller and election.
     */
    static Disposable replica(KubernetesClient client, String namespace, String identity, boolean sharded) {
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(namespace);
        ResourceClient<V1Lease> leases = client.resource(V1Lease.class).inNamespace(namespace);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace));
        Controller.Builder<V1ConfigMap> builder = Controller.builder(informer).name(identity)
                .reconciler(request -> informer.indexer().getByKey(request.key())
                        .filter(map -> !checksum(map).equals(annotation(map)))
                        .map(map -> maps.patch(request.name(), PatchType.MERGE, "{\"metadata\":{\"annotations\":{\""
                                        + ANNOTATION + "\":\"" + checksum(map) + "\"}}}")
                                .doOnNext(patched -> System.out.println(identity + ": " + request + " -> " + checksum(map)))
                                .thenReturn(Result.done()))
                        .orElse(Mono.just(Result.done())));
        if (sharded) {
            builder.sharding(ShardElector.builder(leases, "checksums", identity).build(), ShardSelector.Key.UID);
        } else {
            builder.leaderElection(LeaderElector.builder(leases, "checksums", identity).build());
        }
        Disposable controller = builder.build().start();
        factory.start();
        return () -> {
            controller.dispose(); // stops reconciling, then releases the Leases
            factory.shutdown().subscribe();
        };
    }

    /** A hash of the data and labels, independent of map order. */
    static String checksum(V1ConfigMap map) {
        Map<String, String> data = map.getData() == null ? Map.of() : new TreeMap<>(map.getData());
        Map<String, String> labels = map.getMetadata().getLabels() == null ? Map.of()
                : new TreeMap<>(map.getMetadata().getLabels());
        return Integer.toHexString((data + "/" + labels).hashCode());
    }

    private static String annotation(V1ConfigMap map) {
        Map<String, String> annotations = map.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(ANNOTATION);
    }
}
