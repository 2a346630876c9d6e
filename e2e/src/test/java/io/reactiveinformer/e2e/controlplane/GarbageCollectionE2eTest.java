package io.reactiveinformer.e2e.controlplane;

import static io.reactiveinformer.e2e.controlplane.ControlPlane.CALL;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.DeleteOptions.Propagation;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.watch.ListerWatcher;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * kube-controller-manager's garbage collector deletes what an owner's deletion propagates to, and an informer
 * on the owner and its dependents (ConfigMaps owning ConfigMaps) sees each deletion, in the order the
 * propagation policy makes: in the background the owner goes first; in the foreground it is first updated
 * with a deletionTimestamp and the {@code foregroundDeletion} finalizer and goes after its dependents.
 */
@KubeApiServerTest(controlPlane = true)
class GarbageCollectionE2eTest {

    private static final int DEPENDENTS = 5;
    private static final String LABEL = "gc-test";
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    private final KubernetesClient admin;
    private final String namespace;
    private final ResourceClient<V1ConfigMap> maps;
    private final Disposable.Composite running = Disposables.composite();
    private SharedIndexInformer<V1ConfigMap> informer;

    GarbageCollectionE2eTest(KubeApiServer env) {
        admin = ControlPlane.admin(env);
        namespace = ControlPlane.createNamespace(admin, "gc");
        // The label leaves out the kube-root-ca.crt ConfigMap the controller manager puts in every namespace.
        maps = admin.resource(V1ConfigMap.class).inNamespace(namespace).withLabelSelector(LABEL);
    }

    @AfterEach
    void stop() {
        running.dispose();
        admin.resource(V1Namespace.class).delete(namespace).block(CALL);
        admin.close();
    }

    @Test
    void backgroundDeletionRemovesTheOwnerThenItsDependents() {
        Recording<V1ConfigMap> seen = follow();
        V1ConfigMap owner = createOwnerAndDependents(false);

        maps.delete(owner.getMetadata().getName(), DeleteOptions.none().withPropagation(Propagation.BACKGROUND))
                .block(CALL);

        List<Notification.Deleted<V1ConfigMap>> deletions = awaitAllDeleted(seen);
        assertThat(deletions.get(0).key()).as("the owner goes first").isEqualTo(namespace + "/owner");
        assertThat(seen.updates(namespace + "/owner")).as("nothing marks the owner before it goes").isEmpty();
    }

    @Test
    void foregroundDeletionMarksTheOwnerAndRemovesItAfterItsDependents() {
        Recording<V1ConfigMap> seen = follow();
        V1ConfigMap owner = createOwnerAndDependents(true);

        maps.delete(owner.getMetadata().getName(), DeleteOptions.none().withPropagation(Propagation.FOREGROUND))
                .block(CALL);

        List<Notification.Deleted<V1ConfigMap>> deletions = awaitAllDeleted(seen);
        Notification.Deleted<V1ConfigMap> ownerGone = deletions.get(deletions.size() - 1);
        assertThat(ownerGone.key()).as("the owner goes last").isEqualTo(namespace + "/owner");
        assertThat(seen.updates(ownerGone.key())).as("the owner while its dependents are deleted").isNotEmpty()
                .allSatisfy(marked -> {
                    assertThat(marked.getMetadata().getDeletionTimestamp()).isNotNull();
                    assertThat(marked.getMetadata().getFinalizers()).contains("foregroundDeletion");
                });
        assertThat(ownerGone.lastState().getMetadata().getDeletionTimestamp()).isNotNull();
    }

    /** Every notification of an informer on the test's ConfigMaps, in order, once it has synced. */
    private Recording<V1ConfigMap> follow() {
        SharedIndexInformer<V1ConfigMap> informer = SharedIndexInformer.builder(
                InformerSpec.of(V1ConfigMap.class).inNamespace(namespace).withLabelSelector(LABEL),
                ListerWatcher.of(maps)).build();
        Recording<V1ConfigMap> seen = new Recording<>();
        running.add(informer.notifications().subscribe(seen));
        running.add(informer.start());
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
        this.informer = informer;
        return seen;
    }

    private V1ConfigMap createOwnerAndDependents(boolean blockOwnerDeletion) {
        V1ConfigMap owner = maps.create(map("owner", null)).block(CALL);
        V1OwnerReference reference = new V1OwnerReference().apiVersion("v1").kind("ConfigMap")
                .name(owner.getMetadata().getName()).uid(owner.getMetadata().getUid())
                .blockOwnerDeletion(blockOwnerDeletion ? Boolean.TRUE : null);
        Flux.range(0, DEPENDENTS).flatMap(i -> maps.create(map("dependent-" + i, reference))).then().block(CALL);
        StepVerifier.create(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), DEADLINE,
                Schedulers.parallel())).expectComplete().verify(DEADLINE.plusSeconds(5));
        assertThat(informer.indexer().list()).hasSize(DEPENDENTS + 1);
        return owner;
    }

    private static V1ConfigMap map(String name, V1OwnerReference owner) {
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().name(name).labels(Map.of(LABEL, "true"))
                        .ownerReferences(owner == null ? null : List.of(owner)));
    }

    /** Waits until the informer is empty, as a LIST is, and returns the deletions it notified, in order. */
    private List<Notification.Deleted<V1ConfigMap>> awaitAllDeleted(Recording<V1ConfigMap> seen) {
        Set<String> all = IntStream.range(0, DEPENDENTS).mapToObj(i -> namespace + "/dependent-" + i)
                .collect(Collectors.toCollection(HashSet::new));
        all.add(namespace + "/owner");
        StepVerifier.create(Convergence.until(() -> seen.deletions().size() == all.size(), DEADLINE, Schedulers.parallel())
                        .then(Convergence.cacheMatchesList(informer.indexer()::list, ListerWatcher.of(maps), DEADLINE,
                                Schedulers.parallel())))
                .expectComplete().verify(DEADLINE.multipliedBy(2));
        List<Notification.Deleted<V1ConfigMap>> deletions = seen.deletions();
        assertThat(deletions).extracting(Notification::key).containsExactlyInAnyOrderElementsOf(all);
        assertThat(informer.indexer().list()).isEmpty();
        return deletions;
    }
}
