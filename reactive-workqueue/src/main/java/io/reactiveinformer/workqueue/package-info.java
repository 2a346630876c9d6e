/**
 * Work queues for controllers: client-go's {@code util/workqueue} semantics (an item is pending at
 * most once and never processed by two workers at once), delays on a Reactor
 * {@link reactor.core.scheduler.Scheduler}, rate limiting, priorities, and a backpressured
 * {@link io.reactiveinformer.workqueue.WorkQueue#process process} stream that takes an item only
 * when a worker is free. No method blocks and no thread waits for work.
 *
 * <p>Start at {@link io.reactiveinformer.workqueue.WorkQueue#builder()}.
 */
package io.reactiveinformer.workqueue;
