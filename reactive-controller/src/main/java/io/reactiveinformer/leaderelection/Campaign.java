package io.reactiveinformer.leaderelection;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

/**
 * A campaign ({@link LeaderCampaign}, {@link ShardCampaign}): started once per subscription of an
 * elector's {@code run()}, disposed when that subscription ends.
 */
interface Campaign extends Disposable {

    void start();

    /**
     * The {@code run()} of an elector: a new campaign per subscription, with at most one at a time per
     * {@code running} flag, since two campaigns of one identity would take each other for the holder (a second
     * concurrent subscription fails with {@link IllegalStateException} saying {@code busy}). Events are few
     * and buffered until requested, and handed to the subscriber on {@code observers}: never inline on the
     * campaign's timer, so a subscriber that starts its work (or blocks) on {@code Acquired} cannot delay
     * the renewals that keep the term alive.
     */
    static Flux<LeadershipEvent> exclusive(AtomicBoolean running, String busy, Scheduler observers,
                                           Function<FluxSink<LeadershipEvent>, Campaign> campaigns) {
        return Flux.create((FluxSink<LeadershipEvent> sink) -> {
            if (!running.compareAndSet(false, true)) {
                sink.error(new IllegalStateException(busy));
                return;
            }
            Campaign campaign = campaigns.apply(sink);
            sink.onDispose(() -> {
                campaign.dispose();
                running.set(false);
            });
            campaign.start();
        }, FluxSink.OverflowStrategy.BUFFER).publishOn(observers);
    }
}
