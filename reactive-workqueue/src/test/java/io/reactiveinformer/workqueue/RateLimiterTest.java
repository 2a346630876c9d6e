package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class RateLimiterTest {

    private static final long SECOND = 1_000_000_000L;

    private static List<Duration> delays(RateLimiter<String> limiter, String item, int count, long now) {
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            delays.add(limiter.when(item, now));
        }
        return delays;
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    @Test
    void exponentialDoublesFromBaseUpToTheCap() {
        RateLimiter<String> limiter = RateLimiter.exponential(ms(5), Duration.ofSeconds(1000));

        List<Duration> expected = new ArrayList<>();
        for (int n = 0; n <= 17; n++) {
            expected.add(ms(5L << n)); // 5 ms .. 655.36 s
        }
        expected.add(Duration.ofSeconds(1000));
        expected.add(Duration.ofSeconds(1000));

        assertThat(delays(limiter, "a", 20, 0)).containsExactlyElementsOf(expected);
        assertThat(limiter.numRequeues("a")).isEqualTo(20);
    }

    @Test
    void exponentialIsPerItemAndForgettable() {
        RateLimiter<String> limiter = RateLimiter.exponential(ms(5), Duration.ofSeconds(1000));

        assertThat(delays(limiter, "a", 3, 0)).containsExactly(ms(5), ms(10), ms(20));
        assertThat(limiter.when("b", 0)).isEqualTo(ms(5));
        assertThat(limiter.numRequeues("a")).isEqualTo(3);

        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
        assertThat(limiter.when("a", 0)).isEqualTo(ms(5));
        assertThat(limiter.numRequeues("b")).isEqualTo(1);
    }

    @Test
    void exponentialNeverOverflows() {
        RateLimiter<String> limiter = RateLimiter.exponential(ms(5), Duration.ofSeconds(Long.MAX_VALUE));

        List<Duration> delays = delays(limiter, "a", 200, 0);

        assertThat(delays).allSatisfy(d -> assertThat(d).isPositive());
        assertThat(delays).isSorted();
        assertThat(delays.get(199)).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    }

    @Test
    void tokenBucketLetsTheBurstThroughThenOnePerTenthOfASecond() {
        RateLimiter<String> limiter = RateLimiter.tokenBucket(10, 100);

        for (int i = 0; i < 100; i++) {
            assertThat(limiter.when("item" + i, 0)).isZero();
        }
        assertThat(limiter.when("item100", 0)).isEqualTo(ms(100));
        assertThat(limiter.when("item101", 0)).isEqualTo(ms(200));
        assertThat(limiter.numRequeues("item101")).isZero();
    }

    @Test
    void tokenBucketRefillsWithTimeUpToTheBurst() {
        RateLimiter<String> limiter = RateLimiter.tokenBucket(10, 100);
        delays(limiter, "a", 102, 0); // 2 tokens in debt

        // one second later: 10 tokens back, 8 after the debt
        for (int i = 0; i < 8; i++) {
            assertThat(limiter.when("a", SECOND)).isZero();
        }
        assertThat(limiter.when("a", SECOND)).isEqualTo(ms(100));

        // a long pause refills to the burst, not beyond
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.when("a", 3600 * SECOND)).isZero();
        }
        assertThat(limiter.when("a", 3600 * SECOND)).isEqualTo(ms(100));
    }

    @Test
    void tokenBucketRejectsNonsense() {
        assertThatThrownBy(() -> RateLimiter.tokenBucket(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RateLimiter.tokenBucket(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RateLimiter.tokenBucket(Double.NaN, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fastSlowSwitchesAfterTheFastAttempts() {
        RateLimiter<String> limiter = RateLimiter.fastSlow(ms(5), Duration.ofSeconds(10), 3);

        assertThat(delays(limiter, "a", 5, 0))
                .containsExactly(ms(5), ms(5), ms(5), Duration.ofSeconds(10), Duration.ofSeconds(10));
        assertThat(limiter.numRequeues("a")).isEqualTo(5);
        assertThat(limiter.when("b", 0)).isEqualTo(ms(5));

        limiter.forget("a");
        assertThat(limiter.when("a", 0)).isEqualTo(ms(5));
    }

    @Test
    void maxWaitCapsTheDelegate() {
        RateLimiter<String> limiter =
                RateLimiter.maxWait(RateLimiter.exponential(Duration.ofSeconds(1), Duration.ofSeconds(1000)), Duration.ofSeconds(5));

        assertThat(delays(limiter, "a", 5, 0))
                .containsExactly(
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(4),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(5));
        assertThat(limiter.numRequeues("a")).isEqualTo(5);
        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
    }

    @Test
    void maxOfTakesTheLargestAndRecordsInAll() {
        RateLimiter<String> fastSlow = RateLimiter.fastSlow(ms(1), ms(500), 2);
        RateLimiter<String> exponential = RateLimiter.exponential(ms(100), Duration.ofSeconds(10));
        RateLimiter<String> limiter = RateLimiter.maxOf(fastSlow, exponential);

        assertThat(delays(limiter, "a", 4, 0)).containsExactly(ms(100), ms(200), ms(500), ms(800));
        assertThat(fastSlow.numRequeues("a")).isEqualTo(4);
        assertThat(exponential.numRequeues("a")).isEqualTo(4);

        limiter.forget("a");
        assertThat(limiter.numRequeues("a")).isZero();
    }

    @Test
    void defaultIsExponentialUntilTheBucketRunsDry() {
        RateLimiter<String> limiter = RateLimiter.defaultControllerRateLimiter();

        for (int i = 0; i < 100; i++) {
            assertThat(limiter.when("item" + i, 0)).isEqualTo(ms(5));
        }
        // the 101st retry at the same instant: the bucket (100 ms) outweighs the backoff (5 ms)
        assertThat(limiter.when("item100", 0)).isEqualTo(ms(100));
        assertThat(limiter.when("item0", 0)).isEqualTo(ms(200));
        assertThat(limiter.numRequeues("item0")).isEqualTo(2);
    }

    @Test
    void queueRetriesAfterTheLimitersDelayInVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        WorkQueue<String> queue = Queues.virtual(time);

        long[] expectedMillis = {5, 10, 20, 40};
        for (long expected : expectedMillis) {
            queue.addRateLimited("a");
            time.advanceTimeBy(ms(expected - 1));
            assertThat(queue.size()).isZero();
            time.advanceTimeBy(ms(1));
            assertThat(tryGet(queue)).isEqualTo("a");
            queue.done("a");
        }
        assertThat(queue.numRequeues("a")).isEqualTo(4);

        queue.forget("a");
        assertThat(queue.numRequeues("a")).isZero();
        queue.addRateLimited("a");
        time.advanceTimeBy(ms(5));
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void the101stImmediateRetryWaitsOneTenthOfASecond() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        WorkQueue<String> queue = Queues.virtual(time);

        for (int i = 0; i <= 100; i++) {
            queue.addRateLimited("item" + i);
        }
        time.advanceTimeBy(ms(5));
        assertThat(queue.size()).isEqualTo(100);
        time.advanceTimeBy(ms(94));
        assertThat(queue.size()).isEqualTo(100);
        time.advanceTimeBy(ms(1));
        assertThat(queue.size()).isEqualTo(101);
    }

    @Test
    void fastSlowAndMaxWaitDriveTheQueue() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        WorkQueue<String> queue = Queues.virtual(
                time, RateLimiter.maxWait(RateLimiter.fastSlow(ms(5), Duration.ofSeconds(60), 1), Duration.ofSeconds(2)));

        queue.addRateLimited("a");
        time.advanceTimeBy(ms(5));
        queue.done(tryGet(queue));

        queue.addRateLimited("a");
        time.advanceTimeBy(ms(1999));
        assertThat(queue.size()).isZero();
        time.advanceTimeBy(ms(1));
        assertThat(tryGet(queue)).isEqualTo("a");
    }
}
