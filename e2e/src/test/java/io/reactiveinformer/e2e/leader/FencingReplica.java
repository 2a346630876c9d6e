package io.reactiveinformer.e2e.leader;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Lease;
import io.reactiveinformer.api.FencedWriteException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WriteFence;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.LeaderElector;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * One replica of a leader-elected controller, in a JVM of its own so that {@link FencedWritesE2eTest} can pause
 * it with {@code SIGSTOP}. Its one reconcile never ends: it patches the ConfigMap {@code target} every 20 ms with
 * {@code writer=<identity>} (and a sequence number), until its Lease term ends. Prints {@code READY} once started, {@code FENCED} for a
 * write the fence refused and {@code ENDED} when a reconcile ends. Exits when its standard input closes.
 *
 * <p>Arguments: kubeconfig, namespace, identity, {@code fenced} or {@code unfenced} (the latter removes the
 * fence from each write's context: the control run, as a replica without fencing would behave).
 */
public final class FencingReplica {

    private FencingReplica() {
    }

    public static void main(String[] args) throws IOException {
        String namespace = args[1];
        String identity = args[2];
        boolean fenced = "fenced".equals(args[3]);
        KubernetesClient client = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(Path.of(args[0])), "admin"));
        ResourceClient<V1ConfigMap> maps = client.resource(V1ConfigMap.class).inNamespace(namespace);
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<V1ConfigMap> informer = factory.informer(InformerSpec.of(V1ConfigMap.class)
                .inNamespace(namespace).withFieldSelector("metadata.name=target"));
        AtomicLong writes = new AtomicLong();
        // each write changes the object (a patch that changes nothing is not a new version, nor a watch event)
        Mono<V1ConfigMap> write = Mono.defer(() -> maps.patch("target", PatchType.MERGE,
                "{\"metadata\":{\"annotations\":{\"writer\":\"" + identity + "\",\"seq\":\""
                        + writes.incrementAndGet() + "\"}}}"));
        Controller.builder(informer).name("fencing-" + identity)
                .leaderElection(LeaderElector.builder(client.resource(V1Lease.class).inNamespace(namespace), "fencing",
                        identity).timings(LeaseNamespace.FAST).build())
                .reconciler(request -> (fenced ? write : write.contextWrite(c -> c.delete(WriteFence.class)))
                        .then(Mono.delay(Duration.ofMillis(20)))
                        .repeat()
                        .doOnError(FencedWriteException.class, e -> System.out.println("FENCED " + e.getMessage()))
                        .doFinally(signal -> System.out.println("ENDED " + signal))
                        .then(Mono.just(Result.done())))
                .build().start();
        System.out.println("READY");
        while (System.in.read() >= 0) {
            // the test holds our input open while it wants us running
        }
        System.exit(0);
    }
}
