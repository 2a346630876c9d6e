package io.reactiveinformer.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * One sample of the soak, taken after a cycle's convergence check: what the JVM holds (heap after a full
 * GC, threads, connections to the apiserver, buffered notifications) and the counters so far.
 */
record SoakSample(long seconds, double heapMb, int threads, int connections, int bufferedSum, int bufferedMax,
                  long cachedObjects, long changes, double changesPerSecond, long refused, int faults, long checkMillis,
                  int failedChecks, long relists, long restarts) {

    /** Samples before this are left out of the trends: caches fill, the JIT and the pools warm up. */
    static final Duration WARM_UP = Duration.ofMinutes(5);

    static final String HEADER = "seconds,heap_after_gc_mb,threads,connections,buffered_sum,buffered_max,cached_objects,"
            + "changes,changes_per_s,refused,faults,check_ms,failed_checks,relists,restarts";

    /** A sampled series whose trend decides the verdict; {@code tolerance} is the smallest change that counts for small counts. */
    record Series(String name, ToDoubleFunction<SoakSample> value, double tolerance) {
    }

    static final List<Series> SERIES = List.of(
            new Series("heap after GC (MB)", SoakSample::heapMb, 0),
            new Series("live threads", SoakSample::threads, 3),
            new Series("connections to the apiserver", SoakSample::connections, 3),
            new Series("buffered notifications (all subscribers)", SoakSample::bufferedSum, 3),
            new Series("cached objects (all informers)", SoakSample::cachedObjects, 0));

    /**
     * A series' least-squares line over the samples: flat when it moves the value by less than 10 % of the
     * mean over the sampled span, or by less than the series' tolerance.
     */
    record Trend(Series series, double first, double last, double mean, double slopePerHour, double change) {

        boolean flat() {
            return Math.abs(change) < Math.max(0.10 * Math.abs(mean), series.tolerance());
        }

        String row() {
            return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %+.2f | %+.1f | %s |", series.name(), first, last,
                    mean, slopePerHour, change, flat() ? "yes" : "**no**");
        }
    }

    static List<SoakSample> afterWarmUp(List<SoakSample> samples) {
        List<SoakSample> steady = samples.stream().filter(s -> s.seconds() >= WARM_UP.toSeconds()).toList();
        // a short run (a trial) has no warm-up to spare: keep its second half
        return steady.size() >= 4 ? steady : samples.subList(samples.size() / 2, samples.size());
    }

    static Trend trend(List<SoakSample> samples, Series series) {
        int n = samples.size();
        if (n == 0) {
            return new Trend(series, 0, 0, 0, 0, 0);
        }
        double sx = 0;
        double sy = 0;
        for (SoakSample s : samples) {
            sx += s.seconds();
            sy += series.value().applyAsDouble(s);
        }
        double mx = sx / n;
        double my = sy / n;
        double sxy = 0;
        double sxx = 0;
        for (SoakSample s : samples) {
            double dx = s.seconds() - mx;
            sxy += dx * (series.value().applyAsDouble(s) - my);
            sxx += dx * dx;
        }
        double slope = sxx == 0 ? 0 : sxy / sxx;
        double span = samples.get(n - 1).seconds() - samples.get(0).seconds();
        return new Trend(series, series.value().applyAsDouble(samples.get(0)), series.value().applyAsDouble(samples.get(n - 1)),
                my, slope * 3600, slope * span);
    }

    String csv() {
        return String.format(Locale.ROOT, "%d,%.1f,%d,%d,%d,%d,%d,%d,%.1f,%d,%d,%d,%d,%d,%d", seconds, heapMb, threads,
                connections, bufferedSum, bufferedMax, cachedObjects, changes, changesPerSecond, refused, faults, checkMillis,
                failedChecks, relists, restarts);
    }

    static void writeCsv(List<SoakSample> samples, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        samples.forEach(s -> lines.add(s.csv()));
        Files.write(file, lines);
    }
}
