package io.reactiveinformer.leaderelection;

import java.time.Duration;

/**
 * The bounds the real-thread retry tests hold a loop to: over a wall-clock window, about one try per retry
 * period. The slack (half as many again, plus two) absorbs a slow machine's late timers and a try at each end
 * of the window; a loop without a floor makes hundreds or thousands of tries in the same window.
 */
public final class RetryBounds {

    private RetryBounds() {
    }

    /** The most tries a loop with a floor of {@code period} may make in {@code window}. */
    public static int atMost(Duration window, Duration period) {
        return (int) (window.toMillis() * 3 / (period.toMillis() * 2)) + 2;
    }
}
