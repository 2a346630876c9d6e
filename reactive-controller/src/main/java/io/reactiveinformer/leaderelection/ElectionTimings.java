package io.reactiveinformer.leaderelection;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a lease lasts and how often it is renewed and retried (client-go's
 * {@code LeaseDuration}, {@code RenewDeadline} and {@code RetryPeriod}).
 *
 * @param leaseDuration how long candidates wait, after they last saw the lease change, before they take it
 *                      over; written into the Lease as whole seconds (rounded up)
 * @param renewDeadline how long after the start of its last successful renewal a holder still considers itself
 *                      the holder; it stops (and stops starting work) at that moment, which is before any
 *                      candidate may take over, since it is shorter than {@code leaseDuration}
 * @param retryPeriod   how often holders renew and candidates try; candidates' tries are jittered by up to
 *                      1.2 times this
 */
public record ElectionTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {

    private static final ElectionTimings DEFAULTS = new ElectionTimings(Duration.ofSeconds(15), Duration.ofSeconds(10),
            Duration.ofSeconds(2));

    /** Validates: lease duration (at least a second) &gt; renew deadline &gt; 1.2 &times; retry period &gt; 0. */
    public ElectionTimings {
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(renewDeadline, "renewDeadline");
        Objects.requireNonNull(retryPeriod, "retryPeriod");
        if (retryPeriod.isNegative() || retryPeriod.isZero()) {
            throw new IllegalArgumentException("retryPeriod must be positive: " + retryPeriod);
        }
        if (leaseDuration.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("leaseDuration must be at least 1 s (a Lease holds whole seconds): "
                    + leaseDuration);
        }
        if (leaseDuration.compareTo(renewDeadline) <= 0) {
            throw new IllegalArgumentException("leaseDuration " + leaseDuration + " must be greater than renewDeadline "
                    + renewDeadline);
        }
        if (renewDeadline.toNanos() <= retryPeriod.toNanos() * 6 / 5) {
            throw new IllegalArgumentException("renewDeadline " + renewDeadline + " must be greater than 1.2 x retryPeriod "
                    + retryPeriod);
        }
    }

    /** client-go's usual timings: lease 15 s, renew deadline 10 s, retry period 2 s. */
    public static ElectionTimings defaults() {
        return DEFAULTS;
    }

    /** The lease duration as the Lease records it: whole seconds, rounded up. */
    int leaseSeconds() {
        long seconds = leaseDuration.getSeconds() + (leaseDuration.getNano() > 0 ? 1 : 0);
        return (int) Math.min(Integer.MAX_VALUE, seconds);
    }
}
