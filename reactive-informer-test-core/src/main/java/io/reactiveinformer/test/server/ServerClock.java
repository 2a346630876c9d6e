package io.reactiveinformer.test.server;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import reactor.core.scheduler.Scheduler;

/**
 * The clock of the timestamps a state writes (creation, deletion): the scheduler's time in whole
 * seconds, as the API server writes RFC 3339 timestamps. A virtual-time scheduler makes them
 * deterministic.
 */
final class ServerClock {

    private final Scheduler scheduler;

    ServerClock(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Now, truncated to the second. */
    Instant now() {
        return Instant.ofEpochMilli(scheduler.now(TimeUnit.MILLISECONDS)).truncatedTo(ChronoUnit.SECONDS);
    }

    /** Now, as a timestamp field holds it. */
    String timestamp() {
        return now().toString();
    }
}
