package io.reactiveinformer.watch;

import static io.reactiveinformer.watch.Fixtures.LISTING;
import static io.reactiveinformer.watch.Fixtures.added;
import static io.reactiveinformer.watch.Fixtures.bookmark;
import static io.reactiveinformer.watch.Fixtures.cm;
import static io.reactiveinformer.watch.Fixtures.failed;
import static io.reactiveinformer.watch.Fixtures.open;
import static io.reactiveinformer.watch.Fixtures.page;
import static io.reactiveinformer.watch.Fixtures.reflector;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.WatchEvent;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The server-side watch timeout and the client-side idle detection. */
@Timeout(30)
class ReflectorTimeoutTest {

    private final VirtualTimeScheduler scheduler = VirtualTimeScheduler.create();
    private final ScriptedListerWatcher<V1ConfigMap> lw = new ScriptedListerWatcher<>(scheduler);

    private int watchTimeoutSeconds(Reflector<V1ConfigMap> reflector, ScriptedListerWatcher<V1ConfigMap> lister) {
        lister.listReturns(page("10", null)).watchReturns(open(bookmark("11")));
        StepVerifier.withVirtualTime(reflector::events, () -> scheduler, Long.MAX_VALUE)
                .expectNextCount(2)
                .thenCancel()
                .verify();
        return lister.watch(lister.watchCalls().size() - 1).timeoutSeconds();
    }

    private int watchTimeoutSeconds(double random) {
        ScriptedListerWatcher<V1ConfigMap> lister = new ScriptedListerWatcher<>(scheduler);
        return watchTimeoutSeconds(reflector(lister, scheduler, random, LISTING), lister);
    }

    @Test
    void watchTimeoutIsSpreadOverFiveToTenMinutes() {
        assertThat(watchTimeoutSeconds(0.0)).isEqualTo(300);
        assertThat(watchTimeoutSeconds(0.5)).isEqualTo(450);
        assertThat(watchTimeoutSeconds(Math.nextDown(1.0))).isEqualTo(599);
    }

    @Test
    void defaultRandomnessKeepsTheWatchTimeoutInRange() {
        Reflector<V1ConfigMap> reflector = Reflector.builder(lw).options(LISTING).scheduler(scheduler).build();

        IntStream.range(0, 50).forEach(i -> assertThat(watchTimeoutSeconds(reflector, lw)).isBetween(300, 599));
    }

    @Test
    void watchTimeoutFollowsTheConfiguredMinimum() {
        ScriptedListerWatcher<V1ConfigMap> lister = new ScriptedListerWatcher<>(scheduler);
        ReflectorOptions options = LISTING.withMinWatchTimeout(Duration.ofSeconds(60));

        assertThat(watchTimeoutSeconds(reflector(lister, scheduler, 0.25, options), lister)).isEqualTo(75);
    }

    @Test
    void defaultIdleTimeoutOutlastsTheLongestWatch() {
        ReflectorOptions defaults = ReflectorOptions.defaults();
        assertThat(defaults.idleTimeout()).isGreaterThan(defaults.minWatchTimeout().multipliedBy(2));
    }

    @Test
    void watchSilentForTheIdleTimeoutIsRestartedFromTheLastVersionWithoutRelisting() {
        ReflectorOptions options = LISTING.withIdleTimeout(Duration.ofMinutes(3));
        lw.listReturns(page("10", null))
                .watchReturns(Flux.just(added(cm("a", "11")))
                        .concatWith(Flux.just(bookmark("12")).delaySubscription(Duration.ofMinutes(2), scheduler))
                        .concatWith(Flux.never()))
                .watchReturns(open(bookmark("13")));

        StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options).events(), () -> scheduler,
                        Long.MAX_VALUE)
                .expectNextCount(2)
                .expectNoEvent(Duration.ofMinutes(2))
                .expectNextCount(1)
                .as("the bookmark restarted the idle timer")
                .expectNoEvent(Duration.ofMinutes(3).minusMillis(1))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(failed(ReflectorException.Reason.WATCH_IDLE, 1, Duration.ofMillis(800)))
                .then(() -> assertThat(lw.cancelledWatches()).isEqualTo(1))
                .expectNoEvent(Duration.ofMillis(800))
                .expectNext(new ReflectorEvent.Bookmark<>("13"))
                .thenCancel()
                .verify();

        assertThat(lw.listCalls()).hasSize(1);
        assertThat(lw.watch(1).resourceVersion()).isEqualTo("12");
        assertThat(lw.watchCalls().get(1).atMillis()).isEqualTo(Duration.ofMinutes(5).plusMillis(800).toMillis());
    }

    @Test
    void watchThatNeverSendsAnythingIsIdleToo() {
        ReflectorOptions options = LISTING.withIdleTimeout(Duration.ofSeconds(30));
        lw.listReturns(page("10", null)).watchReturns(Flux.<WatchEvent<V1ConfigMap>>never());

        StepVerifier.withVirtualTime(() -> reflector(lw, scheduler, 0.0, options).events(), () -> scheduler,
                        Long.MAX_VALUE)
                .expectNextCount(1)
                .expectNoEvent(Duration.ofSeconds(30).minusMillis(1))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(failed(ReflectorException.Reason.WATCH_IDLE, 1, Duration.ofMillis(800)))
                .thenCancel()
                .verify();
    }
}
