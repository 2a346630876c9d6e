package io.reactiveinformer.informer;

import static io.reactiveinformer.informer.FakePodServer.valueOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.informer.UserCodeError.Stage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * User code that throws (transform, index function, metrics hook, handler) never stops the informer and
 * never loses an object: the informer keeps following the server, keeps the object, counts, signals.
 */
class UserCodeFailureTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final FakePodServer server = new FakePodServer(time);
    private final List<UserCodeError> errors = new CopyOnWriteArrayList<>();

    /** Adds "!" to the value; a user bug: throws for a pod whose value is "poison". */
    private static final UnaryOperator<V1Pod> MARK = pod -> {
        if ("poison".equals(valueOf(pod))) {
            throw new NullPointerException("no such label");
        }
        V1ObjectMeta m = pod.getMetadata();
        return FakePodServer.pod(m.getNamespace(), m.getName(), valueOf(pod) + "!", Long.parseLong(m.getResourceVersion()));
    };

    private SharedIndexInformer<V1Pod> informer(SharedIndexInformer.Builder<V1Pod> builder) {
        SharedIndexInformer<V1Pod> informer = builder.name("pods").scheduler(time).build();
        informer.userCodeErrors().subscribe(errors::add);
        return informer;
    }

    private SharedIndexInformer.Builder<V1Pod> builder(UnaryOperator<V1Pod> transform) {
        return SharedIndexInformer.builder(InformerSpec.of(V1Pod.class).withTransform(transform), server);
    }

    @Test
    void aTransformThatThrowsForAnObjectPresentAtStartStillSyncsAndTheInformerKeepsFollowing() {
        server.put("a", "p1", "poison");
        server.put("a", "p2", "ok");
        SharedIndexInformer<V1Pod> informer = informer(builder(MARK));
        Recorder handler = new Recorder();
        informer.notifications().subscribe(handler);
        informer.start();

        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(Recorder.values(informer.indexer().list().stream()
                .collect(java.util.stream.Collectors.toMap(p -> p.getMetadata().getName(), p -> p))))
                .containsExactlyInAnyOrderEntriesOf(Map.of("p1", "poison", "p2", "ok!"));

        server.put("a", "p3", "new");
        server.put("a", "p1", "poison");
        server.put("a", "p2", "changed");

        assertThat(handler.view()).containsExactlyInAnyOrderEntriesOf(
                Map.of("a/p1", "poison", "a/p2", "changed!", "a/p3", "new!"));
        assertThat(errors).extracting(UserCodeError::stage, UserCodeError::key, UserCodeError::informer)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Stage.TRANSFORM, "a/p1", "pods"),
                        org.assertj.core.groups.Tuple.tuple(Stage.TRANSFORM, "a/p1", "pods"));
        assertThat(errors.get(0).error()).isInstanceOf(NullPointerException.class);
        InformerHealth health = informer.health();
        assertThat(health.userCodeErrors()).isEqualTo(2);
        assertThat(health.synced()).isTrue();
        assertThat(health.stopped()).isFalse();
        assertThat(health.healthy()).isTrue();
        assertThat(informer.isStopped()).isFalse();
    }

    @Test
    void aTransformThatChangesTheKeyOrReturnsNullLeavesTheObjectUntransformed() {
        server.put("a", "renamed", "x");
        server.put("a", "nulled", "y");
        SharedIndexInformer<V1Pod> informer = informer(builder(pod -> switch (pod.getMetadata().getName()) {
            case "renamed" -> FakePodServer.pod("a", "other", "x", 1);
            case "nulled" -> null;
            default -> pod;
        }));
        informer.start();

        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("a/renamed", "a/nulled");
        assertThat(errors).extracting(UserCodeError::stage).containsOnly(Stage.TRANSFORM);
        assertThat(errors).extracting(UserCodeError::key).containsExactlyInAnyOrder("a/renamed", "a/nulled");
    }

    @Test
    void anIndexFunctionThatThrowsLeavesTheObjectCachedButNotIndexed() {
        server.put("a", "good", "1");
        server.put("a", "bad", "boom");
        SharedIndexInformer<V1Pod> informer = informer(builder(null).indexers(Map.of("byValue", pod -> {
            if ("boom".equals(valueOf(pod))) {
                throw new IllegalStateException("index bug");
            }
            return List.of(valueOf(pod));
        })));
        informer.start();
        server.put("a", "later", "2");

        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(informer.indexer().listKeys()).containsExactlyInAnyOrder("a/good", "a/bad", "a/later");
        assertThat(informer.indexer().indexValues("byValue")).containsExactlyInAnyOrder("1", "2");
        assertThat(informer.lister().namespace("a").list()).hasSize(3);
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.stage()).isEqualTo(Stage.INDEX);
            assertThat(e.key()).isEqualTo("a/bad");
            assertThat(e.detail()).isEqualTo("byValue");
        });
    }

    @Test
    void failuresAreCountedByStageInTheInformersMetrics() {
        server.put("a", "poisoned", "poison");
        server.put("a", "bad", "boom");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        SharedIndexInformer<V1Pod> informer = informer(builder(MARK).metrics(MicrometerInformerMetrics.provider(registry))
                .indexers(Map.of("byValue", pod -> {
                    if (valueOf(pod).startsWith("boom")) {
                        throw new IllegalStateException("index bug");
                    }
                    return List.of(valueOf(pod));
                })));
        informer.start();

        StepVerifier.create(informer.hasSynced()).verifyComplete();
        assertThat(registry.get("informer.user.code.errors").tag("informer", "pods").tag("stage", "TRANSFORM").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("informer.user.code.errors").tag("stage", "INDEX").counter().count()).isEqualTo(1);
        assertThat(informer.health().userCodeErrors()).isEqualTo(2);
    }

    @Test
    void metricsHooksThatThrowCostOnlyTheMeasurement() {
        server.put("a", "p1", "1");
        InformerMetrics broken = new InformerMetrics() {
            @Override
            public void event(WatchEvent.Type type) {
                throw new IllegalStateException("event");
            }

            @Override
            public void relisted(int objects) {
                throw new IllegalStateException("relisted");
            }

            @Override
            public void restarted(KubernetesClientException error) {
                throw new IllegalStateException("restarted");
            }

            @Override
            public Runnable subscriberAdded(String subscriber, IntSupplier bufferDepth, LongSupplier lagNanos) {
                throw new IllegalStateException("subscriberAdded");
            }
        };
        SharedIndexInformer<V1Pod> informer = informer(builder(null).metrics((name, gauges) -> broken));
        Recorder handler = new Recorder();
        informer.notifications().subscribe(handler);
        informer.start();
        server.put("a", "p2", "2");

        assertThat(handler.view()).containsOnlyKeys("a/p1", "a/p2");
        assertThat(errors).extracting(UserCodeError::stage).containsOnly(Stage.METRICS);
        assertThat(errors).extracting(UserCodeError::detail).contains("subscriberAdded", "relisted", "event");

        SharedIndexInformer<V1Pod> unregistrable = SharedIndexInformer.builder(V1Pod.class, server).scheduler(time)
                .metrics((name, gauges) -> {
                    throw new IllegalStateException("register");
                }).build();
        unregistrable.start();
        assertThat(unregistrable.indexer().listKeys()).containsExactlyInAnyOrder("a/p1", "a/p2");
        assertThat(unregistrable.health().userCodeErrors()).isEqualTo(1);
    }

    @Test
    void aThrowingHandlerIsSignalledAndEndsOnlyItself() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = informer(builder(null));
        Recorder healthy = new Recorder();
        informer.notifications().subscribe(healthy);
        // A CoreSubscriber that throws: what reaches the informer. (Reactor's lambda subscribers and
        // operators such as doOnNext catch a handler's exception themselves and cancel instead.)
        informer.notifications(SubscriberOptions.defaults().withName("buggy")).subscribe(new reactor.core.CoreSubscriber<>() {
            @Override
            public void onSubscribe(org.reactivestreams.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Notification<V1Pod> n) {
                throw new IllegalArgumentException("handler bug");
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onComplete() {
            }
        });
        informer.start();
        server.put("a", "p2", "2");

        assertThat(healthy.view()).containsOnlyKeys("a/p1", "a/p2");
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.stage()).isEqualTo(Stage.HANDLER);
            assertThat(e.detail()).isEqualTo("buggy");
            assertThat(e.key()).isEqualTo("a/p1");
        });
        assertThat(informer.handlerCount()).isEqualTo(1);
    }

    @Test
    void healthTellsForbiddenAfterSyncAndRecovery() {
        server.put("a", "p1", "1");
        SharedIndexInformer<V1Pod> informer = informer(builder(null));
        List<InformerHealth> changes = new CopyOnWriteArrayList<>();
        informer.healthChanges().subscribe(changes::add);
        assertThat(informer.health()).satisfies(h -> {
            assertThat(h.started()).isFalse();
            assertThat(h.lastSyncAge()).isNull();
        });
        informer.start();
        assertThat(informer.health().healthy()).isTrue();
        assertThat(informer.health().lastSyncAge()).isEqualTo(Duration.ZERO);

        // Access is revoked: the watch breaks with 410 and every relist is refused.
        server.failNextLists(2, FakePodServer.forbidden());
        server.breakWatches();
        time.advanceTimeBy(Duration.ofMillis(1600)); // the relist after a 410 waits one backoff: 0.8-1.6 s
        InformerHealth denied = informer.health();
        assertThat(denied.forbidden()).as("%s", denied).isTrue();
        assertThat(denied.healthy()).isFalse();
        assertThat(denied.consecutiveFailures()).isGreaterThanOrEqualTo(1);
        assertThat(denied.lastError()).isInstanceOf(io.reactiveinformer.api.KubernetesApiException.Forbidden.class);

        time.advanceTimeBy(Duration.ofSeconds(20));
        InformerHealth recovered = informer.health();
        assertThat(recovered.forbidden()).isFalse();
        assertThat(recovered.healthy()).isTrue();
        assertThat(recovered.consecutiveFailures()).isZero();
        assertThat(recovered.lastSyncAge()).isLessThan(Duration.ofSeconds(20));
        assertThat(changes).extracting(InformerHealth::forbidden).contains(true).last().isEqualTo(false);
        assertThat(changes.get(0).started()).isFalse();
    }

    @Test
    void aSyncMarkerComesExactlyAfterEachSubscribersInitialItems() {
        server.put("a", "p1", "1");
        server.put("a", "p2", "2");
        SharedIndexInformer<V1Pod> informer = informer(builder(null));
        Recorder.Any<V1Pod> early = new Recorder.Any<>();
        informer.notifications(SubscriberOptions.defaults().withSyncMarker()).subscribe(early);
        informer.start();
        server.put("a", "p3", "3");
        Recorder.Any<V1Pod> late = new Recorder.Any<>();
        informer.notifications(SubscriberOptions.defaults().unbounded().withSyncMarker()).subscribe(late);
        server.put("a", "p4", "4");
        Recorder.Any<V1Pod> plain = new Recorder.Any<>();
        informer.notifications().subscribe(plain);

        assertThat(early.keys()).containsExactly("a/p1", "a/p2", "", "a/p3", "a/p4");
        assertThat(late.keys().subList(0, 3)).containsExactlyInAnyOrder("a/p1", "a/p2", "a/p3");
        assertThat(late.keys().subList(3, 5)).containsExactly("", "a/p4");
        assertThat(plain.keys()).doesNotContain("");
    }
}
