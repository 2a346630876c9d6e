package io.reactiveinformer.leaderelection;

import io.reactiveinformer.api.KubernetesApiException;
import java.time.Duration;
import java.util.random.RandomGenerator;
import reactor.core.Exceptions;

/**
 * How long a campaign waits before it tries again after a failed request: never less than a retry period.
 *
 * <p>A failure can come back in microseconds (connection refused, a 403 from an admission webhook, a 500 from
 * an overloaded server); a wait derived from the Lease's expiry alone is zero once the holder's Lease has run
 * out, and the campaign would loop as fast as the failures return. So every wait after a failure has this floor,
 * is jittered like client-go's {@code wait.JitterUntil(retryPeriod, 1.2)} (uniform in
 * {@code [retry, 2.2 x retry)}), so that replicas that failed together do not retry in lockstep, and is at
 * least the server's {@code Retry-After} when a 429 or 5xx carried one (bounded, see {@link #afterFailure}).
 *
 * <p>Stateless; the random source is the caller's (each campaign runs on one worker, so it needs no lock).
 */
final class RetryDelays {

    /** client-go's {@code JitterFactor} for the leader election's retries. */
    static final double JITTER_FACTOR = 1.2;

    private RetryDelays() {
    }

    /** A retry period plus up to {@link #JITTER_FACTOR} retry periods: uniform in {@code [retry, 2.2 x retry)}. */
    static long jittered(ElectionTimings timings, RandomGenerator random) {
        long retry = timings.retryPeriod().toMillis();
        return retry + (long) (random.nextDouble() * JITTER_FACTOR * retry);
    }

    /**
     * The wait after {@code error}: the larger of {@code floor} and the server's {@code Retry-After}. The
     * {@code Retry-After} counts for at most a lease duration, so that a server asking for an hour still sees a
     * candidate at least once per lease duration (it cannot take a Lease over any sooner anyway).
     */
    static long afterFailure(Throwable error, long floor, ElectionTimings timings) {
        return Math.max(floor, Math.min(retryAfterMillis(error), timings.leaseDuration().toMillis()));
    }

    /** The {@code Retry-After} of an API error (429, 5xx), in millis; 0 when there is none. */
    static long retryAfterMillis(Throwable error) {
        if (Exceptions.unwrap(error) instanceof KubernetesApiException api) {
            return api.retryAfter().filter(d -> !d.isNegative()).map(Duration::toMillis).orElse(0L);
        }
        return 0;
    }
}
