package io.reactiveinformer.benchmarks.sidebyside;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One count per handler, with two latches: all handlers have seen the listed objects, and all have
 * seen every watch notification too. A handler calls {@link #count(int)} from its delivery thread.
 *
 * <p>A client that merges a key's pending changes (this library's FIFO keeps a key's newest update
 * while the apply loop is behind, as a bounded buffer) delivers fewer notifications than the stream
 * carries; its handlers call {@link #count(int, String)} with the notified object's resource version,
 * and a handler has also seen everything once it has seen the stream's last change.
 */
public final class Counters {

    private final AtomicLong[] counts;
    private final AtomicBoolean[] finished;
    private final long listed;
    private final long all;
    private final long lastVersion;
    private final CountDownLatch listedLatch;
    private final CountDownLatch allLatch;

    public Counters(int handlers, long listed, long watched) {
        this(handlers, listed, watched, Long.MAX_VALUE);
    }

    /** With the resource version of the stream's last change (see {@link #count(int, String)}). */
    public Counters(int handlers, long listed, long watched, long lastVersion) {
        counts = new AtomicLong[handlers];
        finished = new AtomicBoolean[handlers];
        for (int i = 0; i < handlers; i++) {
            counts[i] = new AtomicLong();
            finished[i] = new AtomicBoolean();
        }
        this.listed = listed;
        this.all = listed + watched;
        this.lastVersion = lastVersion;
        listedLatch = new CountDownLatch(handlers);
        allLatch = new CountDownLatch(handlers);
    }

    public void count(int handler) {
        long c = counts[handler].incrementAndGet();
        if (c == listed) {
            listedLatch.countDown();
        }
        if (c == all && finished[handler].compareAndSet(false, true)) {
            allLatch.countDown();
        }
    }

    /** As {@link #count(int)}; the handler is also done once it has seen the stream's last change. */
    public void count(int handler, String resourceVersion) {
        count(handler);
        if (Long.parseLong(resourceVersion) >= lastVersion && finished[handler].compareAndSet(false, true)) {
            allLatch.countDown();
        }
    }

    /** How many notifications {@code handler} has seen. */
    public long seen(int handler) {
        return counts[handler].get();
    }

    public void awaitListed() throws InterruptedException {
        await(listedLatch, "listed");
    }

    public void awaitAll() throws InterruptedException {
        await(allLatch, "watched");
    }

    private void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(10, TimeUnit.MINUTES)) {
            StringBuilder seen = new StringBuilder();
            for (AtomicLong c : counts) {
                seen.append(c.get()).append(' ');
            }
            throw new IllegalStateException("handlers did not see all " + what + " notifications: " + seen);
        }
    }
}
