package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** 401/403/404 do not hang hasSynced; the informer keeps retrying with the reflector's backoff and recovers. */
class SyncFailureTest {

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
    private final ReflectorOptions noJitter = ReflectorOptions.defaults()
            .withBackoff(Backoff.defaults().withJitter(0));

    private SharedIndexInformer<V1Pod> informer(int threshold) {
        return SharedIndexInformer.builder(V1Pod.class, server).name("pods").scheduler(time)
                .reflectorOptions(noJitter).syncFailureThreshold(threshold).build();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(ints = {401, 403, 404})
    void refusedAccessFailsHasSyncedAfterNAttemptsThenRecovers(int code) {
        Class<? extends KubernetesApiException> refusal = switch (code) {
            case 401 -> KubernetesApiException.Unauthorized.class;
            case 403 -> KubernetesApiException.Forbidden.class;
            default -> KubernetesApiException.NotFound.class; // a kind whose CRD is not installed yet
        };
        server.put("a", "p1", "1");
        server.failNextLists(5, KubernetesApiException.of("GET /api/v1/pods", code, null, null));
        SharedIndexInformer<V1Pod> informer = informer(3);
        HandlerRegistration<V1Pod> handler = informer.register(SubscriberOptions.defaults());
        handler.notifications().subscribe();
        informer.start();

        // Attempts at 0, 0.8 s and 2.4 s (backoff 800 ms, ×2): the third failure fails hasSynced.
        StepVerifier.create(informer.hasSynced())
                .expectSubscription()
                .then(() -> time.advanceTimeBy(Duration.ofMillis(2399)))
                .then(() -> assertThat(server.listMillis).containsExactly(0L, 800L))
                .then(() -> time.advanceTimeBy(Duration.ofMillis(1)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(InformerSyncException.class, s -> {
                    assertThat(s.informerName()).isEqualTo("pods");
                    assertThat(s.attempts()).isEqualTo(3);
                    assertThat(s.getCause()).isInstanceOf(refusal);
                    assertThat(s).hasMessageContaining("pods");
                }))
                .verify(Duration.ofSeconds(10));
        StepVerifier.create(handler.hasSynced()).verifyError(InformerSyncException.class);
        assertThat(server.listMillis).containsExactly(0L, 800L, 2400L);

        // Two more refusals (5.6 s, 12 s), then access is granted: the list at 24.8 s succeeds.
        time.advanceTimeBy(Duration.ofMillis(24_799 - 2400));
        assertThat(server.listMillis).containsExactly(0L, 800L, 2400L, 5600L, 12_000L);
        StepVerifier.create(informer.hasSynced()).verifyError(InformerSyncException.class);
        time.advanceTimeBy(Duration.ofMillis(1));
        StepVerifier.create(informer.hasSynced()).verifyComplete();
        StepVerifier.create(handler.hasSynced()).verifyComplete();
        assertThat(informer.indexer().listKeys()).containsExactly("a/p1");
    }

    @Test
    void aWaitingHasSyncedCompletesWhenAccessIsGrantedBeforeTheThreshold() {
        server.failNextLists(2, KubernetesApiException.of("GET /apis/example.com/v1/widgets", 404, null, null));
        SharedIndexInformer<V1Pod> informer = informer(3);
        informer.start();
        StepVerifier.create(informer.hasSynced())
                .expectSubscription()
                .then(() -> time.advanceTimeBy(Duration.ofMillis(2399)))
                .then(() -> assertThat(informer.isSynced()).isFalse())
                .then(() -> time.advanceTimeBy(Duration.ofMillis(1)))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void retriableFailuresDoNotFailHasSynced() {
        server.failNextLists(6, KubernetesApiException.of("GET /api/v1/pods", 503, null, null));
        SharedIndexInformer<V1Pod> informer = informer(1);
        informer.start();
        StepVerifier.create(informer.hasSynced())
                .expectSubscription()
                .then(() -> time.advanceTimeBy(Duration.ofSeconds(30)))
                .then(() -> assertThat(server.listMillis).hasSizeGreaterThan(3))
                .then(() -> time.advanceTimeBy(Duration.ofMinutes(2)))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }
}
