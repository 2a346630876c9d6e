package io.reactiveinformer.examples;

import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1ReplicaSet;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.KeyMapper;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** The README's quick start, kept compiling. */
public final class QuickStart {

    private QuickStart() {
    }

    /** Starts a Deployment controller on the cluster of {@code $KUBECONFIG} (or in-cluster); dispose to stop. */
    public static Disposable run() {
        KubernetesClient client = KubernetesClient.create(ClientConfig.load());
        SharedInformerFactory factory = SharedInformerFactory.builder(client).build();
        SharedIndexInformer<V1Deployment> deployments = factory.informer(V1Deployment.class);
        SharedIndexInformer<V1ReplicaSet> replicaSets = factory.informer(V1ReplicaSet.class);

        // Notifications are a Flux; every subscriber has its own buffer and drain task (see "Slow and blocking handlers").
        deployments.notifications()
                .filter(n -> n instanceof Notification.Deleted)
                .subscribe(n -> System.out.println("deleted " + n.key()));

        // Deployment keys, and the owners of changed ReplicaSets, go into a rate-limited queue.
        Controller controller = Controller.builder(deployments)
                .owns(replicaSets, KeyMapper.controllerOwner("apps/v1", "Deployment"))
                .maxConcurrentReconciles(4)
                .reconciler(request -> Mono.justOrEmpty(deployments.lister().namespace(request.namespace())
                                .get(request.name()))
                        .doOnNext(d -> System.out.println("reconcile " + request.namespace() + "/" + request.name()))
                        .thenReturn(Result.done()))
                .build();
        return controller.start(); // starts the informers; reconciles once they have synced
    }
}
