package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * What every JVM contender shares: the replay server's control calls, a heap reading after full GC,
 * and the {@code RESULT} line the driver script collects. One contender process runs
 * {@code warmups + iterations} rounds against a fresh client each round; warm-up rounds are reported
 * (for the raw data) but flagged so the summary discards them.
 *
 * <p>The driver picks the measure with environment variables, the same for the Go contender:
 * {@code BENCH_MODE} ({@link Mode}), {@code BENCH_WARMUP_SERVER} (a replay server of a small corpus
 * for the warm-up rounds, so warming up costs little at large N), {@code LAT_RATE}/{@code LAT_COUNT},
 * {@code INFORMERS}, {@code SLOW_RATE}/{@code SLOW_SECONDS}/{@code SLOW_HANDLER_MS}/{@code SLOW_SAMPLE_SECONDS}.
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
        SLOW
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public final Mode mode = Mode.valueOf(env("BENCH_MODE", "matrix").toUpperCase(java.util.Locale.ROOT));
    public final URI server;
    public final int subscribers;
    public final int warmups;
    public final int iterations;
    public final Properties corpus;
    public final int objects;
    public final int notifications;
    private final Target main;
    private final Target warmup;

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
        server = URI.create(args[0]);
        subscribers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        warmups = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        main = Target.of(server);
        String warmupServer = System.getenv("BENCH_WARMUP_SERVER");
        warmup = warmupServer == null || warmupServer.isEmpty() ? main : Target.of(URI.create(warmupServer));
        corpus = main.corpus();
        objects = main.objects();
        notifications = main.notifications();
    }

    /** The server of a round: the warm-up server for warm-up rounds. */
    public Target target(int round) {
        return round < warmups ? warmup : main;
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

    public static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Used heap after the client was closed: closing finishes asynchronously in every client (event
     * loops, executor threads let go of their last references a little later), so this takes the
     * lowest reading of five full GCs 200 ms apart.
     */
    public static long settledHeapAfterGc() throws InterruptedException {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            lowest = Math.min(lowest, usedHeapAfterGc());
            Thread.sleep(200);
        }
        return lowest;
    }

    /**
     * Used heap after the client of {@code round} was closed: {@link #settledHeapAfterGc()} for a
     * measured round; one reading for a warm-up round, whose heap figures are dropped anyway.
     */
    public long heapAfterClose(int round) throws InterruptedException {
        return round < warmups ? usedHeapAfterGc() : settledHeapAfterGc();
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

    public void report(String contender, int round, Map<String, Object> measures) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("contender", contender);
        line.put("subscribers", subscribers);
        line.put("mode", mode.name().toLowerCase(java.util.Locale.ROOT));
        line.put("n", target(round).objects());
        line.put("m", target(round).corpus().getProperty("m"));
        line.put("round", round);
        line.put("warmup", round < warmups);
        line.putAll(measures);
        StringBuilder text = new StringBuilder("RESULT");
        line.forEach((k, v) -> text.append(' ').append(k).append('=').append(v));
        System.out.println(text);
        System.out.flush();
    }

    public int rounds() {
        return warmups + iterations;
    }
}
