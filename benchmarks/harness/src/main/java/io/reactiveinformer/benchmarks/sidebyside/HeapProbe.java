package io.reactiveinformer.benchmarks.sidebyside;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/** The live class histogram for the retained-heap programs (their readings are {@link Harness#settledHeapAfterGc()}). */
public final class HeapProbe {

    private HeapProbe() {
    }

    /** The first {@code lines} lines of {@code GC.class_histogram} (live objects, after a full GC). */
    public static String histogram(int lines) throws Exception {
        String all = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        String[] split = all.split("\n");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(lines + 3, split.length); i++) {
            b.append(split[i]).append('\n');
        }
        return b.append(split[split.length - 1]).toString();
    }
}
