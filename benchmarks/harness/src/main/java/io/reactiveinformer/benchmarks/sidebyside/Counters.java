package io.reactiveinformer.benchmarks.sidebyside;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One count per handler, with two latches: all handlers have seen the listed objects, and all have
 * seen every watch notification too. A handler calls {@link #count(int)} from its delivery thread.
 */
public final class Counters {

    private final AtomicLong[] counts;
    private final long listed;
    private final long all;
    private final CountDownLatch listedLatch;
    private final CountDownLatch allLatch;

    public Counters(int handlers, long listed, long watched) {
        counts = new AtomicLong[handlers];
        for (int i = 0; i < handlers; i++) {
            counts[i] = new AtomicLong();
        }
        this.listed = listed;
        this.all = listed + watched;
        listedLatch = new CountDownLatch(handlers);
        allLatch = new CountDownLatch(handlers);
    }

    public void count(int handler) {
        long c = counts[handler].incrementAndGet();
        if (c == listed) {
            listedLatch.countDown();
        }
        if (c == all) {
            allLatch.countDown();
        }
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
