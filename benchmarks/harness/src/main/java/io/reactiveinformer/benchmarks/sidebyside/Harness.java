package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What every JVM contender shares: the replay server's control calls, a heap reading after full GC,
 * the plan of rounds and the {@code RESULT} line the driver script collects. One contender process runs
 * its {@link #rounds()}, each against a fresh client; warm-up rounds are reported (for the raw data) but
 * flagged so the summary discards them.
 *
 * <p>Arguments: {@code SERVERS [SUBSCRIBERS [WARMUPS [ITERATIONS]]]}. In the matrix mode {@code SERVERS}
 * is a comma-separated list of replay servers, smallest corpus first: one process measures every N in
 * turn (one JVM start and one warm-up per run instead of one per N), and the driver interleaves the
 * contenders run by run. A round that does not sync within {@code SYNC_DEADLINE_S} is reported as such
 * and ends the process ({@link #reportSyncTimeout}): the corpora that follow are larger still.
 *
 * <p>The driver picks the measure with environment variables, the same for the Go contender:
 * {@code BENCH_MODE} ({@link Mode}), {@code BENCH_WARMUP_SERVER} (a replay server of a small corpus
 * for the warm-up rounds), {@code FANOUT_N}/{@code FANOUT_SUBSCRIBERS} (the matrix also runs the
 * corpus of FANOUT_N objects with that many handlers), {@code WATCH_MAX_N} (larger corpora are listed
 * but their watch stream is not played), {@code SYNC_DEADLINE_S}, {@code LAT_RATE}/{@code LAT_COUNT},
 * {@code INFORMERS}, {@code SLOW_RATE}/{@code SLOW_SECONDS}/{@code SLOW_HANDLER_MS}/{@code SLOW_SAMPLE_SECONDS},
 * {@code ISO_RATE}/{@code ISO_SECONDS}/{@code ISO_CPU_MS}/{@code ISO_SLEEP_MS}/{@code ISO_FAST}/{@code ISO_GRACE_S},
 * {@code STORM_RATE}/{@code STORM_SECONDS}/{@code STORM_BASELINE_S}/{@code STORM_JOINS},
 * {@code CONTENDER_LABEL} (the contender's name in the results, for a variant such as one pinned to a core).
 */
public final class Harness {

    /** What a contender process measures. */
    public enum Mode {
        /** Time to synced, events/s at full speed, heap per object, threads with one informer. */
        MATRIX,
        /** Server write to handler latency over a stream paced at {@code LAT_RATE} events/s. */
        LATENCY,
        /** Live threads with {@code INFORMERS} idle informers (one per namespace) once all are synced. */
        THREADS,
        /** Heap growth over {@code SLOW_SECONDS} with one handler that takes {@code SLOW_HANDLER_MS} a notification. */
        SLOW,
        /** Lag of fast handlers beside a CPU-bound and a blocking one at {@code ISO_RATE} changes/s ({@link IsolationRun}). */
        ISOLATION,
        /** {@code STORM_JOINS} handlers added to a running informer: the calls, their initial lists, a fast handler's lag ({@link StormRun}). */
        STORM
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public final Mode mode = Mode.valueOf(env("BENCH_MODE", "matrix").toUpperCase(java.util.Locale.ROOT));
    private final List<Round> rounds = new ArrayList<>();

    /**
     * One round: a fresh client against {@code target} with {@code subscribers} handlers. A round with
     * {@code watch} false lists only (its corpus is above {@code WATCH_MAX_N}).
     */
    public record Round(int index, Target target, int subscribers, boolean warmup, boolean watch) {

        /** The notifications the round's handlers see after the list: none when the stream is not played. */
        public int notifications() {
            return watch ? target.notifications() : 0;
        }
    }

    /** One replay server and the corpus it serves. */
    public record Target(URI server, Properties corpus, int objects, int notifications) {

        static Target of(URI server) throws IOException, InterruptedException {
            Properties corpus = new Properties();
            corpus.load(new StringReader(Harness.get(server, "/corpus")));
            return new Target(server, corpus, Integer.parseInt(corpus.getProperty("n")),
                    Integer.parseInt(corpus.getProperty("notifications")));
        }

        public String get(String path) throws IOException, InterruptedException {
            return Harness.get(server, path);
        }

        /** Ends every watch the server has open: the round's client is closed. */
        public void dropWatches() throws IOException, InterruptedException {
            get("/drop");
        }

        /** The resource version of the last notification among the first {@code count} events. */
        public long lastVersion(int count) throws IOException, InterruptedException {
            return Long.parseLong(get("/last?count=" + count).trim());
        }

        /** How many notifications (events that are not bookmarks) the first {@code count} events carry. */
        public int notificationsIn(int count) throws IOException, InterruptedException {
            return Integer.parseInt(get("/notifications?count=" + count).trim());
        }

        /**
         * Releases the waiting watch stream (at full speed when {@code rate} is 0) with its first
         * {@code count} events; answers how many notifications (events that are not bookmarks) it carries.
         */
        public int go(double rate, int count) throws IOException, InterruptedException {
            return go(rate, count, 1);
        }

        /** As {@link #go(double, int)}, once {@code together} contenders have asked (they all start at once). */
        public int go(double rate, int count, int together) throws IOException, InterruptedException {
            return Integer.parseInt(get("/go?rate=" + rate + "&count=" + count + "&together=" + together).trim());
        }
    }

    public Harness(String[] args) throws IOException, InterruptedException {
        int subscribers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int warmups = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        List<Target> targets = new ArrayList<>();
        for (String server : args[0].split(",")) {
            targets.add(Target.of(URI.create(server)));
        }
        if (mode != Mode.MATRIX) {
            targets = targets.subList(0, 1);
        }
        String warmupServer = System.getenv("BENCH_WARMUP_SERVER");
        Target warmup = warmupServer == null || warmupServer.isEmpty() ? targets.get(0) : Target.of(URI.create(warmupServer));
        for (int i = 0; i < warmups; i++) {
            add(warmup, subscribers, true);
        }
        int fanOutN = envInt("FANOUT_N", -1);
        int fanOutSubscribers = envInt("FANOUT_SUBSCRIBERS", 10);
        for (Target t : targets) {
            for (int i = 0; i < iterations; i++) {
                add(t, subscribers, false);
            }
            if (mode == Mode.MATRIX && t.objects() == fanOutN && fanOutSubscribers != subscribers) {
                for (int i = 0; i < iterations; i++) {
                    add(t, fanOutSubscribers, false);
                }
            }
        }
    }

    private void add(Target target, int subscribers, boolean warmup) {
        rounds.add(new Round(rounds.size(), target, subscribers, warmup,
                mode != Mode.MATRIX || target.objects() <= envInt("WATCH_MAX_N", Integer.MAX_VALUE)));
    }

    /** The rounds of this process, in order: warm-ups, then each corpus (and its fan-out rounds). */
    public List<Round> rounds() {
        return rounds;
    }

    /** {@code SYNC_DEADLINE_S}: how long a matrix round may take to sync before it is reported as timed out. */
    public static Duration syncDeadline() {
        return Duration.ofSeconds(envInt("SYNC_DEADLINE_S", 600));
    }

    /**
     * Reports that {@code round} did not sync within {@link #syncDeadline()} and ends the process: the
     * client may still be decoding, and the rounds that follow are larger corpora still.
     */
    public void reportSyncTimeout(String contender, Round round) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sync_timeout_s", syncDeadline().toSeconds());
        report(contender, round, m);
        System.exit(0);
    }

    public static String env(String name, String otherwise) {
        String value = System.getenv(name);
        return value == null || value.isEmpty() ? otherwise : value;
    }

    public static int envInt(String name, int otherwise) {
        return Integer.parseInt(env(name, Integer.toString(otherwise)));
    }

    /** The clock the replay server stamps its writes with: the system clock in epoch microseconds. */
    public static long epochMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    static String get(URI server, String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(server.resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    /**
     * Used heap after two full GCs (the second collects what the first only made unreachable, such as
     * objects kept for reference processing).
     */
    public static long usedHeapAfterGc() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Used heap after GC once it has settled: reads every 250 ms until a reading is within 1 MB of the
     * one before, for at most 5 s. Before a round creates its client, because every client finishes
     * closing the previous round's asynchronously (event loops and executor threads let go of their last
     * references a little later); around a retained-heap measure, for late frees (reference processing).
     */
    public static long settledHeapAfterGc() throws InterruptedException {
        long previous = usedHeapAfterGc();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(250);
            long now = usedHeapAfterGc();
            if (Math.abs(previous - now) < (1 << 20)) {
                return Math.min(previous, now);
            }
            previous = now;
        }
        return previous;
    }

    /** CPU seconds this process has used so far (all its threads, GC included). */
    public static double cpuSeconds() {
        return ProcessCost.cpuNanos() / 1e9;
    }

    /** {@code LAT_RATE}: events/s of the latency stream. */
    public static double latencyRate() {
        return Double.parseDouble(env("LAT_RATE", "5000"));
    }

    /** {@code LAT_COUNT}: events in the latency stream. */
    public static int latencyCount() {
        return envInt("LAT_COUNT", 30000);
    }

    /** The first second of the paced latency stream is discarded (warm-up). */
    public static final long LATENCY_DISCARD_MICROS = 1_000_000;

    /** {@code INFORMERS}: informers of the threads measure, one per namespace {@code bench-<i>}. */
    public static int informers() {
        return envInt("INFORMERS", 100);
    }

    /** Lets the informers' watches connect before threads are counted. */
    public static void settle() throws InterruptedException {
        Thread.sleep(2000);
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    public void report(String contender, Round round, Map<String, Object> measures) {
        Map<String, Object> line = new LinkedHashMap<>();
        // CONTENDER_LABEL names a variant of a contender (e.g. pinned to one core) in the results
        line.put("contender", env("CONTENDER_LABEL", contender));
        line.put("subscribers", round.subscribers());
        line.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
        line.put("n", round.target().objects());
        line.put("m", round.target().corpus().getProperty("m"));
        line.put("round", round.index());
        line.put("warmup", round.warmup());
        line.putAll(measures);
        StringBuilder text = new StringBuilder("RESULT");
        line.forEach((k, v) -> text.append(' ').append(k).append('=').append(v));
        System.out.println(text);
        System.out.flush();
    }
}
