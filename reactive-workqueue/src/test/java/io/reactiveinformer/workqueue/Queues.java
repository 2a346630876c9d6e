package io.reactiveinformer.workqueue;

import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Test helpers around a queue. */
final class Queues {

    private Queues() {}

    /** A queue on a virtual-time scheduler with the given limiter. */
    static WorkQueue<String> virtual(VirtualTimeScheduler scheduler, RateLimiter<String> limiter) {
        return WorkQueue.<String>builder().name("test").scheduler(scheduler).rateLimiter(limiter).build();
    }

    static WorkQueue<String> virtual(VirtualTimeScheduler scheduler) {
        return WorkQueue.<String>builder().name("test").scheduler(scheduler).build();
    }

    /** Takes the next item if one is ready now, else null (and takes nothing). */
    static <T> T tryGet(WorkQueue<T> queue) {
        AtomicReference<T> taken = new AtomicReference<>();
        Disposable subscription = queue.get().subscribe(taken::set);
        subscription.dispose();
        return taken.get();
    }
}
