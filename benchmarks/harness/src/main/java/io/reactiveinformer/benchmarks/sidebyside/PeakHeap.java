package io.reactiveinformer.benchmarks.sidebyside;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The highest used heap between {@link #start()} and {@link #stop()}: what a pod must be sized for while a
 * client syncs, where the retained heap after GC is only what stays.
 *
 * <p>Used heap peaks just before a collection, so every collection's heap usage before GC (summed over the
 * heap pools, from the GC notifications) is a reading, and so is the usage when the measure stops; no
 * sampling thread competes with the contender. The notifications arrive on the JVM's notification thread,
 * shortly after their collection: {@link #stop()} may miss one that ends right then, whose reading is then
 * close to the usage read at the stop.
 */
public final class PeakHeap {

    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong peakAfterGc = new AtomicLong();
    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onNotification;

    private PeakHeap() {
    }

    /** Starts listening; the first reading is the heap used now. */
    public static PeakHeap start() {
        PeakHeap probe = new PeakHeap();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(probe.listener, null, null);
                probe.emitters.add(emitter);
            }
        }
        probe.record(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        return probe;
    }

    /** Stops listening and answers the highest used heap seen, in bytes. */
    public long stop() {
        record(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        return peak.get();
    }

    /**
     * The highest used heap right after a collection seen so far, in bytes: an upper bound of what was live then
     * (a young collection leaves the old generation's garbage), free of the young garbage the peak before a
     * collection counts, whose amount is the collector's choice (the eden it sized), not the client's.
     */
    public long peakAfterGc() {
        return peakAfterGc.get();
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                (CompositeData) notification.getUserData());
        record(heapUsed(info.getGcInfo().getMemoryUsageBeforeGc()));
        peakAfterGc.accumulateAndGet(heapUsed(info.getGcInfo().getMemoryUsageAfterGc()), Math::max);
    }

    private long heapUsed(Map<String, MemoryUsage> pools) {
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : pools.entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        return used;
    }

    private void record(long used) {
        peak.accumulateAndGet(used, Math::max);
    }
}
