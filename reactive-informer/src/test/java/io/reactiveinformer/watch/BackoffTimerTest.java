package io.reactiveinformer.watch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.scheduler.VirtualTimeScheduler;

@Timeout(30)
class BackoffTimerTest {

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();

    private List<Long> delaysMillis(BackoffTimer timer, int count) {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Duration delay = timer.next();
            delays.add(delay.toMillis());
            clock.advanceTimeBy(delay);
        }
        return delays;
    }

    @Test
    void baseDoublesFromInitialUpToTheCap() {
        BackoffTimer timer = new BackoffTimer(Backoff.defaults(), clock, () -> 0.0);

        assertThat(delaysMillis(timer, 9))
                .containsExactly(800L, 1_600L, 3_200L, 6_400L, 12_800L, 25_600L, 30_000L, 30_000L, 30_000L);
    }

    @Test
    void jitterAddsUpToOneBaseSoDelaysStayInDToTwoD() {
        BackoffTimer lowest = new BackoffTimer(Backoff.defaults(), clock, () -> 0.0);
        BackoffTimer middle = new BackoffTimer(Backoff.defaults(), clock, () -> 0.5);
        BackoffTimer highest = new BackoffTimer(Backoff.defaults(), clock, () -> Math.nextDown(1.0));

        assertThat(lowest.next()).isEqualTo(Duration.ofMillis(800));
        assertThat(middle.next()).isEqualTo(Duration.ofMillis(1_200));
        assertThat(highest.next()).isLessThan(Duration.ofMillis(1_600)).isGreaterThan(Duration.ofMillis(1_599));
    }

    @Test
    void everyJitteredDelayLiesInItsBaseInterval() {
        SplittableRandom random = new SplittableRandom(42);
        BackoffTimer timer = new BackoffTimer(Backoff.defaults(), clock, random::nextDouble);
        long[] bases = {800, 1_600, 3_200, 6_400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000};
        for (long base : bases) {
            Duration delay = timer.next();
            assertThat(delay).isGreaterThanOrEqualTo(Duration.ofMillis(base)).isLessThan(Duration.ofMillis(2 * base));
            clock.advanceTimeBy(delay);
        }
    }

    @Test
    void capBoundsTheBaseAndJitterStillSpreadsAtTheCap() {
        BackoffTimer timer = new BackoffTimer(Backoff.defaults().withCap(Duration.ofSeconds(2)), clock, () -> 0.5);

        assertThat(delaysMillis(timer, 4)).containsExactly(1_200L, 2_400L, 3_000L, 3_000L);
    }

    @Test
    void randomOutsideTheUnitIntervalIsClamped() {
        assertThat(new BackoffTimer(Backoff.defaults(), clock, () -> -3.0).next()).isEqualTo(Duration.ofMillis(800));
        assertThat(new BackoffTimer(Backoff.defaults(), clock, () -> Double.NaN).next()).isEqualTo(Duration.ofMillis(800));
        assertThat(new BackoffTimer(Backoff.defaults(), clock, () -> 7.0).next()).isLessThan(Duration.ofMillis(1_600));
    }

    @Test
    void resetsToInitialAfterTheHealthyPeriodSinceTheLastRetryStarted() {
        BackoffTimer timer = new BackoffTimer(Backoff.defaults(), clock, () -> 0.0);
        assertThat(delaysMillis(timer, 3)).containsExactly(800L, 1_600L, 3_200L);

        clock.advanceTimeBy(Duration.ofMinutes(2));

        assertThat(timer.next()).isEqualTo(Duration.ofMillis(800));
    }

    @Test
    void keepsGrowingWhenFailuresComeSoonerThanTheHealthyPeriod() {
        BackoffTimer timer = new BackoffTimer(Backoff.defaults(), clock, () -> 0.0);
        assertThat(delaysMillis(timer, 3)).containsExactly(800L, 1_600L, 3_200L);

        clock.advanceTimeBy(Duration.ofMinutes(2).minusMillis(1));

        assertThat(timer.next()).isEqualTo(Duration.ofMillis(6_400));
    }

    @Test
    void theHealthyPeriodCountsFromTheEndOfTheDelayNotFromTheFailure() {
        BackoffTimer timer = new BackoffTimer(Backoff.defaults().withInitial(Duration.ofSeconds(10)), clock, () -> 0.0);
        assertThat(timer.next()).isEqualTo(Duration.ofSeconds(10));

        clock.advanceTimeBy(Duration.ofMinutes(2));
        assertThat(timer.next()).as("only 110 s healthy after the 10 s delay").isEqualTo(Duration.ofSeconds(20));

        clock.advanceTimeBy(Duration.ofSeconds(20).plus(Duration.ofMinutes(2)));
        assertThat(timer.next()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void backoffRejectsNonsense() {
        Backoff defaults = Backoff.defaults();
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withInitial(Duration.ZERO));
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withFactor(0.5));
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withFactor(Double.NaN));
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withJitter(-0.1));
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withCap(Duration.ofMillis(799)));
        assertThatIllegalArgumentException().isThrownBy(() -> defaults.withResetAfter(Duration.ZERO));
    }
}
