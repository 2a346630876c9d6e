package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ManagedFieldsEntry;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.cache.IndexFunction;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class SharedIndexInformerTest {

    @BeforeAll
    static void boundVerifications() {
        StepVerifier.setDefaultTimeout(Duration.ofSeconds(20));
    }

    @AfterAll
    static void unboundVerifications() {
        StepVerifier.resetDefaultTimeout();
    }


    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);

    private SharedIndexInformer<V1Pod> informer() {
        return SharedIndexInformer.builder(V1Pod.class, server).name("pods").scheduler(time).build();
    }

    @Test
    void handlerGetsInitialListThenLiveChangesAndTheCacheFollows() {
        server.put("a", "p1", "1");
        server.put("a", "p2", "1");
        SharedIndexInformer<V1Pod> informer = informer();
        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults());
        Recorder recorder = new Recorder();
        Disposable subscription = handler.notifications().subscribe(recorder);
        Disposable stop = informer.start();

        StepVerifier.create(handler.hasSynced()).verifyComplete();
        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(recorder.received()).extracting(n -> ((Notification.Added<V1Pod>) n).inInitialList())
                .containsExactly(true, true);

        server.put("a", "p1", "2");
        server.delete("a/p2");
        server.put("b", "p3", "1");

        assertThat(recorder.received()).hasSize(5);
        assertThat(recorder.received().get(2)).isInstanceOfSatisfying(Notification.Updated.class,
                u -> assertThat(FakePodServer.valueOf((V1Pod) u.newObject())).isEqualTo("2"));
        assertThat(recorder.received().get(3)).isInstanceOf(Notification.Deleted.class);
        assertThat(recorder.received().get(4)).isInstanceOfSatisfying(Notification.Added.class,
                a -> assertThat(a.inInitialList()).isFalse());
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("a/p1", "b/p3");
        assertThat(informer.lister().namespace("b").list()).hasSize(1);
        assertThat(informer.lastSyncResourceVersion()).isEqualTo(server.currentResourceVersion());
        assertThat(recorder.view()).isEqualTo(Recorder.values(server.snapshot()));

        subscription.dispose();
        stop.dispose();
    }

    @Test
    void lateHandlerGetsTheCacheAsInitialAddsAndItsOwnHasSynced() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = informer();
        informer.start();
        server.put("a", "p2", "1");
        StepVerifier.create(informer.hasSynced()).verifyComplete();

        HandlerRegistration<V1Pod> late = informer.register(SubscriberOptions.defaults().withName("late"));
        StepVerifier.create(late.notifications(), 0)
                .then(() -> StepVerifier.create(late.hasSynced()).expectSubscription().expectNoEvent(Duration.ZERO)
                        .thenCancel().verify())
                .thenRequest(2)
                .assertNext(n -> assertThat(n).isInstanceOfSatisfying(Notification.Added.class,
                        a -> assertThat(a.inInitialList()).isTrue()))
                .assertNext(n -> assertThat(n).isInstanceOf(Notification.Added.class))
                .then(() -> StepVerifier.create(late.hasSynced()).verifyComplete())
                .then(() -> server.put("a", "p1", "2"))
                .thenRequest(1)
                .assertNext(n -> assertThat(n).isInstanceOf(Notification.Updated.class))
                .thenCancel()
                .verify();
        assertThat(informer.handlerCount()).isZero();
        assertThat(late.name()).isEqualTo("late");
    }

    @Test
    void aRegistrationHasOneSubscriber() {
        HandlerRegistration<V1Pod> handler = informer().register(SubscriberOptions.defaults());
        handler.notifications().subscribe();
        StepVerifier.create(handler.notifications()).verifyError(IllegalStateException.class);
    }

    @Test
    void transformRunsBeforeCaching() {
        V1Pod pod = FakePodServer.pod("a", "p1", "1", 1);
        pod.getMetadata().setManagedFields(List.of(new V1ManagedFieldsEntry().manager("kubectl")));
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer
                .builder(InformerSpec.of(V1Pod.class).withTransform(ObjectTransforms.stripManagedFields()),
                        StaticLister.pods(pod))
                .scheduler(time).build();
        informer.start();
        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(informer.indexer().getByKey("a/p1")).hasValueSatisfying(
                p -> assertThat(p.getMetadata().getManagedFields()).isNull());
    }

    @Test
    void metadataOnlyObjectsAreCachedLikeAnyOther() {
        PartialObjectMetadata meta = new PartialObjectMetadata(
                new io.kubernetes.client.openapi.models.V1ObjectMeta().namespace("a").name("p1").resourceVersion("5"));
        SharedIndexInformer<PartialObjectMetadata> informer = SharedIndexInformer
                .builder(PartialObjectMetadata.class, StaticLister.metadata(meta)).scheduler(time).build();
        Recorder.Any<PartialObjectMetadata> seen = new Recorder.Any<>();
        informer.notifications().subscribe(seen);
        informer.start();
        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(informer.lister().namespace("a").get("p1")).containsSame(meta);
        assertThat(seen.keys()).containsExactly("a/p1");
        assertThat(informer.lastSyncResourceVersion()).isEqualTo("7");
    }

    @Test
    void indicesAreMaintained() {
        IndexFunction<V1Pod> byValue = p -> List.of(FakePodServer.valueOf(p));
        server.put("a", "p1", "x");
        server.put("a", "p2", "y");
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .indexers(Map.of("value", byValue)).scheduler(time).build();
        informer.start();
        server.put("a", "p2", "x");
        assertThat(informer.indexer().indexKeys("value", "x")).containsExactlyInAnyOrder("a/p1", "a/p2");
    }

    @Test
    void selectorsAreSentWithEveryRequest() {
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer
                .builder(InformerSpec.of(V1Pod.class).withLabelSelector("app=web").withFieldSelector("spec.nodeName=n1"),
                        server)
                .scheduler(time).build();
        informer.start();
        assertThat(server.lists).allSatisfy(o -> {
            assertThat(o.labelSelector()).isEqualTo("app=web");
            assertThat(o.fieldSelector()).isEqualTo("spec.nodeName=n1");
        });
        assertThat(server.watches).isNotEmpty().allSatisfy(o -> assertThat(o.labelSelector()).isEqualTo("app=web"));
        assertThat(informer.name()).isEqualTo("V1Pod[labels=app=web, fields=spec.nodeName=n1]");
    }

    @Test
    void stopCancelsTheWatchAndCompletesHandlers() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = informer();
        Disposable stop = informer.start();
        assertThat(informer.start()).isSameAs(stop);
        assertThat(server.openWatches).hasValue(1);
        StepVerifier.create(informer.notifications())
                .expectNextCount(1)
                .then(stop::dispose)
                .verifyComplete();
        assertThat(server.openWatches).hasValue(0);
        assertThat(stop.isDisposed()).isTrue();
        StepVerifier.create(informer.notifications()).expectNextCount(1).verifyComplete();
    }

    @Test
    void stoppingBeforeSyncFailsHasSynced() {
        server.failNextLists(1, FakePodServer.forbidden());
        SharedIndexInformer<V1Pod> informer = informer();
        Disposable stop = informer.start();
        stop.dispose();
        StepVerifier.create(informer.hasSynced()).verifyError(InformerSyncException.class);
    }
}
