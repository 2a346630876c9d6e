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
 */
public final class Harness {

    public final URI server;
    public final int subscribers;
    public final int warmups;
    public final int iterations;
    public final Properties corpus = new Properties();
    public final int objects;
    public final int notifications;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    public Harness(String[] args) throws IOException, InterruptedException {
        server = URI.create(args[0]);
        subscribers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        warmups = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        iterations = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        corpus.load(new StringReader(get("/corpus")));
        objects = Integer.parseInt(corpus.getProperty("n"));
        notifications = Integer.parseInt(corpus.getProperty("notifications"));
    }

    public String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(server.resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + path + ": " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }

    /** Releases the waiting watch stream (at full speed when {@code rate} is 0). */
    public void go(double rate) throws IOException, InterruptedException {
        get("/go?rate=" + rate);
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
     * lowest reading of ten full GCs 200 ms apart.
     */
    public static long settledHeapAfterGc() throws InterruptedException {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            lowest = Math.min(lowest, usedHeapAfterGc());
            Thread.sleep(200);
        }
        return lowest;
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    public void report(String contender, int round, Map<String, Object> measures) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("contender", contender);
        line.put("subscribers", subscribers);
        line.put("n", objects);
        line.put("m", corpus.getProperty("m"));
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
