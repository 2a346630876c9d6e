package io.reactiveinformer.benchmarks.sidebyside;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rounds of the relist-peak benchmark, whoever the contender: each round syncs the N pods of a
 * {@code ReplayServer}, reads the retained heap after GC, then has the server end the watch with a 410
 * ({@code /expire?changed=F}) and answer the relist with the same list in which the fraction F of the pods changed,
 * and measures the heap until the relist is applied ({@link PeakHeap}: the peak used heap before any collection and
 * the peak right after one, both above the baseline taken before the informer existed).
 *
 * <p>Settings (system properties): {@code server}, {@code fractions} changed between the lists ({@code 0,0.1,1}),
 * {@code runs} measured rounds (3), {@code warmup} whether one warm-up round comes first ({@code true}). Output: one
 * CSV line per measurement ({@code changed,round,warmup,objects,retained_mb,peak_mb,peak_ratio,peak_after_gc_mb,
 * peak_after_gc_ratio,relist_ms}), then the medians.
 */
public final class RelistPeakRounds {

    /** One contender's round, from its informer's start to the relist applied. */
    @FunctionalInterface
    public interface Round {

        /**
         * Syncs, measures and closes one informer; {@code relist} is the 410 and the relist's wait.
         *
         * @return {objects, retained bytes, peak used bytes, peak used bytes after GC, relist nanoseconds}, the
         *         heap figures above the baseline
         */
        long[] run(Harness.Target target, double changed) throws Exception;
    }

    private RelistPeakRounds() {
    }

    /** Runs every round of {@code contender} and prints them, then the medians. */
    public static void run(String contender, Round round) throws Exception {
        Harness.Target target = Harness.Target.of(URI.create(System.getProperty("server")));
        int runs = Integer.getInteger("runs", 3);
        boolean warmup = Boolean.parseBoolean(System.getProperty("warmup", "true"));
        List<Double> fractions = new ArrayList<>();
        for (String f : System.getProperty("fractions", "0,0.1,1").split(",")) {
            fractions.add(Double.parseDouble(f));
        }
        Map<Double, List<double[]>> measured = new HashMap<>();
        System.out.println("changed,round,warmup,objects,retained_mb,peak_mb,peak_ratio,peak_after_gc_mb,"
                + "peak_after_gc_ratio,relist_ms");
        for (int index = warmup ? 0 : 1; index <= runs; index++) {
            for (double changed : fractions) {
                long[] raw = round.run(target, changed);
                double[] r = {raw[0], raw[1] / 1048576.0, raw[2] / 1048576.0, raw[3] / 1048576.0, raw[4] / 1e6};
                System.out.printf(Locale.ROOT, "%.2f,%d,%b,%d,%.1f,%.1f,%.2f,%.1f,%.2f,%.0f%n", changed, index,
                        index == 0, raw[0], r[1], r[2], r[2] / r[1], r[3], r[3] / r[1], r[4]);
                if (index > 0) {
                    measured.computeIfAbsent(changed, c -> new ArrayList<>()).add(r);
                }
            }
        }
        for (double changed : fractions) {
            List<double[]> rounds = measured.get(changed);
            double retained = median(rounds, 1);
            System.out.printf(Locale.ROOT, "median %s, %.0f%% changed: retained %.1f MB, relist peak %.1f MB (%.2fx), "
                            + "peak after GC %.1f MB (%.2fx), relist %.0f ms over %d rounds of %d pods%n", contender,
                    changed * 100, retained, median(rounds, 2), median(rounds, 2) / retained, median(rounds, 3),
                    median(rounds, 3) / retained, median(rounds, 4), rounds.size(), target.objects());
        }
    }

    /**
     * The 410 that starts the relist: the server arms the changed list, then ends the one waiting watch.
     *
     * @throws IllegalStateException when no watch was waiting (the informer is not watching)
     */
    public static void expire(Harness.Target target, double changed) throws Exception {
        if (!target.get("/expire?changed=" + changed).strip().equals("1")) {
            throw new IllegalStateException("no watch was waiting to expire");
        }
    }

    /** The resourceVersion of the relist's list: an informer that reached it has applied the relist. */
    public static String relistResourceVersion(Harness.Target target) {
        return target.corpus().getProperty("finalResourceVersion");
    }

    private static double median(List<double[]> rounds, int column) {
        double[] values = rounds.stream().mapToDouble(r -> r[column]).sorted().toArray();
        return values[values.length / 2];
    }
}
