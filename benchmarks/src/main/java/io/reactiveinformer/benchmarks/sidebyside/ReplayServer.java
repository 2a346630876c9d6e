package io.reactiveinformer.benchmarks.sidebyside;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A loopback HTTP server that replays a {@link Corpus} to any Kubernetes client: {@code GET .../pods}
 * answers the pre-generated LIST (whole, ignoring {@code limit}, as the API server's watch cache does),
 * {@code GET .../pods?watch=true&resourceVersion=<list RV>} opens a chunked WATCH that waits for the
 * contender to say {@code GET /go} and then writes the pre-generated events, at full speed or at
 * {@code /go?rate=} events per second; after the last event (and for any watch from another resource
 * version) it keeps the stream open with a BOOKMARK a second until the client goes away.
 *
 * <p>{@code /go} pairs with the oldest waiting watch, so a contender can measure exactly from the
 * first byte of the stream it asked for. {@code /corpus} tells the corpus properties, {@code /notifications?count=K} how many
 * notifications the first {@code K} events carry, {@code /last?count=K} the resource version of the last of them; with a
 * rate, {@code /writes} gives the wall-clock time (epoch microseconds) each notification of the last released stream
 * was written, for latency, once that stream has been written in full ({@code /writes?keys=1} adds each object's
 * {@code namespace/name}).
 * {@code /drop} ends every open watch (a round is over): a client that closed its informer without
 * closing the connection would otherwise keep the informer, and its cache, reachable from the
 * connection into the rounds that follow.
 * {@code /expire?changed=F} forces a relist with the store full: every watch waiting for {@code /go} ends with
 * a 410 Expired error, and from then until {@code /drop} every LIST (the relist, at whichever resource version
 * the client asks for) answers the same list in which the fraction {@code F} of the pods, evenly spread, carry a new
 * resource version (the final one, which the list then has too); everything else about them is unchanged.
 * WebSocket upgrades are refused with a plain 200, which fabric8 takes as the cue to watch over plain HTTP.
 * Runs one thread per connection: it is the load generator, not a contender.
 *
 * <p>Encodings: where the corpus directory also holds the protobuf form of the same objects (written by Go's
 * {@code benchmarks/client-go/corpus2pb}, {@code protobuf.properties} last), lists and watches are negotiated on
 * {@code Accept} as kube-apiserver does: the media range of highest {@code q} among those served here wins, the
 * first listed among equals, and a wildcard means JSON. Protobuf is answered as {@code application/vnd.kubernetes.protobuf}
 * (lists) and {@code application/vnd.kubernetes.protobuf;stream=watch} (length-prefixed {@code WatchEvent} frames,
 * one per JSON line, written and paced alike); JSON is answered exactly as without a protobuf corpus. One exception:
 * the relist after {@code /expire} is a byte edit of the JSON list, so it is answered in JSON whatever was asked
 * (a client that decodes by the response's {@code Content-Type}, as client-go does, reads it;
 * {@code benchmarks/relist-peak.sh} runs JSON clients only).
 */
public final class ReplayServer {

    /** {@code REPLAY_LOG=1} prints every request to stderr (to see what a new client asks for). */
    private static final boolean LOG = System.getenv("REPLAY_LOG") != null;
    private static final String JSON = "application/json";
    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";
    /** Written by {@code corpus2pb} once the protobuf files are complete and read back equal to the JSON. */
    private static final String PROTOBUF_MARKER = "protobuf.properties";

    private final Properties corpus;
    /** The bytes as JSON, and (null without a protobuf corpus) as protobuf. */
    private final Wire json;
    private final Wire protobuf;
    /** The object's resource version of each watch line; 0 for a bookmark. */
    private final long[] lineVersions;
    /** The object's {@code namespace/name} of each watch line; null for a bookmark. */
    private final String[] lineKeys;
    private final String listRv;
    private final String finalRv;
    private final LinkedBlockingQueue<CompletableFuture<Release>> waiting = new LinkedBlockingQueue<>();
    /**
     * When each event of the last released stream was written (epoch µs; empty at full speed), complete
     * once the stream is written: {@code /writes} waits for it, so a contender whose handlers are done
     * before the server has recorded its last write still reads that stream's times, not the previous one's.
     */
    private volatile CompletableFuture<long[]> lastWrites = CompletableFuture.completedFuture(new long[0]);
    /** Bumped by {@code /drop}: a watch ends once the generation it started in is over. */
    private volatile int generation;
    /** What a relist gets after {@code /expire}; null before it and after {@code /drop}. */
    private volatile byte[] relist;
    private final Object barrier = new Object();
    private int arrived;
    private CompletableFuture<Void> released = new CompletableFuture<>();

    /**
     * One encoding of everything served: the list, a namespaced (empty) list, the watch events with the offset of
     * each (event i is {@code events[starts[i]..starts[i+1])}, the same event in every encoding), the bookmark a held
     * watch repeats and the error an expired one ends with.
     */
    private record Wire(String listType, String watchType, byte[] list, byte[] emptyList, byte[] events, int[] starts,
            byte[] bookmark, byte[] expired) {
    }

    /** What {@code /go} tells a waiting watch: its pace, its number of events and where to record their write times. */
    private record Release(double rate, int count, CompletableFuture<long[]> writes, boolean expire) {
    }

    ReplayServer(Path dir) throws IOException {
        corpus = Corpus.load(dir);
        byte[] list = Files.readAllBytes(dir.resolve(Corpus.LIST));
        byte[] watch = Files.readAllBytes(dir.resolve(Corpus.WATCH));
        int lines = Integer.parseInt(corpus.getProperty("m"));
        int[] lineStarts = new int[lines + 1];
        int line = 0;
        for (int i = 0; i < watch.length; i++) {
            if (watch[i] == '\n') {
                lineStarts[++line] = i + 1;
            }
        }
        listRv = corpus.getProperty("listResourceVersion");
        finalRv = corpus.getProperty("finalResourceVersion");
        json = new Wire(JSON, JSON, list, ("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\""
                + finalRv + "\"},\"items\":[]}").getBytes(StandardCharsets.UTF_8), watch, lineStarts,
                ("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":"
                        + "{\"resourceVersion\":\"" + finalRv + "\"}}}\n").getBytes(StandardCharsets.UTF_8),
                ("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
                        + "\"Failure\",\"reason\":\"Expired\",\"code\":410,\"message\":\"too old resource version: "
                        + listRv + "\"}}\n").getBytes(StandardCharsets.UTF_8));
        protobuf = Files.exists(dir.resolve(PROTOBUF_MARKER)) ? protobufWire(dir, lines) : null;
        lineVersions = new long[lines];
        lineKeys = new String[lines];
        JsonMapper mapper = JsonMapper.builder().build();
        for (int i = 0; i < lines; i++) {
            JsonNode event = mapper.readTree(new String(watch, lineStarts[i], lineStarts[i + 1] - lineStarts[i],
                    StandardCharsets.UTF_8));
            if (!"BOOKMARK".equals(event.path("type").asString())) {
                JsonNode metadata = event.path("object").path("metadata");
                lineVersions[i] = Long.parseLong(metadata.path("resourceVersion").asString());
                lineKeys[i] = metadata.path("namespace").asString() + "/" + metadata.path("name").asString();
            }
        }
    }

    /** The protobuf files of {@code corpus2pb}; their watch frames are indexed by their 4-byte big-endian lengths. */
    private static Wire protobufWire(Path dir, int lines) throws IOException {
        byte[] events = Files.readAllBytes(dir.resolve("watch.pb"));
        int[] starts = new int[lines + 1];
        int frame = 0;
        for (int at = 0; at < events.length; frame++) {
            if (frame == lines || at + 4 > events.length) {
                throw new IOException("watch.pb: more than " + lines + " frames or a truncated length at byte " + at);
            }
            at += 4 + ((events[at] & 0xff) << 24 | (events[at + 1] & 0xff) << 16 | (events[at + 2] & 0xff) << 8
                    | (events[at + 3] & 0xff));
            starts[frame + 1] = at;
        }
        if (frame != lines || starts[lines] != events.length) {
            throw new IOException("watch.pb: " + frame + " frames ending at byte " + starts[frame] + " of " + events.length
                    + ", the corpus has " + lines + " events");
        }
        return new Wire(PROTOBUF, PROTOBUF + ";stream=watch", Files.readAllBytes(dir.resolve("list.pb")),
                Files.readAllBytes(dir.resolve("empty-list.pb")), events, starts,
                Files.readAllBytes(dir.resolve("bookmark.pb")), Files.readAllBytes(dir.resolve("expired.pb")));
    }

    /**
     * The encoding an {@code Accept} header gets, as kube-apiserver chooses among the two served here: the media
     * range of highest {@code q} wins, the first listed among equals; a wildcard (or no header) is JSON.
     */
    private static boolean prefersProtobuf(List<String> accept) {
        double best = 0;
        boolean protobuf = false;
        for (String range : String.join(",", accept).split(",")) {
            String[] parts = range.split(";");
            String type = parts[0].trim().toLowerCase(Locale.ROOT);
            double q = 1;
            for (int i = 1; i < parts.length; i++) {
                String parameter = parts[i].trim();
                if (parameter.startsWith("q=")) {
                    q = Double.parseDouble(parameter.substring(2));
                }
            }
            boolean isProtobuf = type.equals(PROTOBUF);
            if ((isProtobuf || type.equals(JSON) || type.equals("application/*") || type.equals("*/*")) && q > best) {
                best = q;
                protobuf = isProtobuf;
            }
        }
        return protobuf;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        ReplayServer replay = new ReplayServer(dir);
        System.out.println("encodings: json" + (replay.protobuf != null ? ", protobuf" : ""));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 256);
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "replay");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/", replay::handle);
        server.start();
        System.out.println("listening http://127.0.0.1:" + server.getAddress().getPort());
        System.out.flush();
        Thread.currentThread().join();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            URI uri = exchange.getRequestURI();
            Map<String, String> query = query(uri.getRawQuery());
            String path = uri.getPath();
            Wire wire = protobuf != null && prefersProtobuf(exchange.getRequestHeaders().getOrDefault("Accept", List.of()))
                    ? protobuf : json;
            if (LOG) {
                System.err.println(exchange.getRequestMethod() + " " + uri + " " + exchange.getRequestHeaders().get("Upgrade"));
            }
            if (path.equals("/go")) {
                double rate = Double.parseDouble(query.getOrDefault("rate", "0"));
                double count = Double.parseDouble(query.getOrDefault("count", Integer.toString(lineVersions.length)));
                int together = Integer.parseInt(query.getOrDefault("together", "1"));
                if (together > 1) {
                    goTogether(exchange, rate, count, together);
                } else {
                    go(exchange, rate, count);
                }
            } else if (path.equals("/notifications")) {
                int events = Integer.parseInt(query.getOrDefault("count", Integer.toString(lineVersions.length)));
                send(exchange, 200, "text/plain", (notifications(events) + "\n").getBytes(StandardCharsets.UTF_8));
            } else if (path.equals("/last")) {
                int events = Integer.parseInt(query.getOrDefault("count", Integer.toString(lineVersions.length)));
                send(exchange, 200, "text/plain", (last(events) + "\n").getBytes(StandardCharsets.UTF_8));
            } else if (path.equals("/corpus")) {
                StringBuilder text = new StringBuilder();
                corpus.stringPropertyNames().stream().sorted()
                        .forEach(k -> text.append(k).append('=').append(corpus.getProperty(k)).append('\n'));
                send(exchange, 200, "text/plain", text.toString().getBytes(StandardCharsets.UTF_8));
            } else if (path.equals("/writes")) {
                writes(exchange, "1".equals(query.get("keys")));
            } else if (path.equals("/expire")) {
                expire(exchange, Double.parseDouble(query.getOrDefault("changed", "0")));
            } else if (path.equals("/drop")) {
                generation++;
                relist = null;
                for (CompletableFuture<Release> go; (go = waiting.poll()) != null; ) {
                    go.completeExceptionally(new IllegalStateException("dropped"));
                }
                send(exchange, 200, "text/plain", new byte[0]);
            } else if (path.equals("/quit")) {
                send(exchange, 200, "text/plain", new byte[0]);
                System.exit(0);
            } else if ("websocket".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Upgrade"))) {
                // no WebSocket here: fabric8 answers a 200 handshake by watching over plain chunked HTTP
                send(exchange, 200, "application/json", ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
                        + "\"Failure\",\"code\":200,\"message\":\"watch over chunked HTTP only\"}")
                        .getBytes(StandardCharsets.UTF_8));
            } else if (path.startsWith("/api/v1/namespaces/") && path.endsWith("/pods")) {
                if ("true".equals(query.get("watch"))) {
                    watch(exchange, wire, finalRv);
                } else {
                    send(exchange, 200, wire.listType(), wire.emptyList());
                }
            } else if (path.endsWith("/pods") && "true".equals(query.get("watch"))) {
                watch(exchange, wire, query.get("resourceVersion"));
            } else if (path.endsWith("/pods")) {
                byte[] variant = relist;
                if (variant != null) {
                    send(exchange, 200, JSON, variant);
                } else {
                    send(exchange, 200, wire.listType(), wire.list());
                }
            } else {
                send(exchange, 404, "application/json", ("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"reason\":\"NotFound\",\"code\":404,\"message\":\"no replay for " + path + "\"}")
                        .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException gone) {
            // the client closed its watch: that is how every watch here ends
        }
    }

    private void go(HttpExchange exchange, double rate, double count) throws IOException {
        CompletableFuture<Release> stream;
        try {
            stream = waiting.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (stream == null) {
            send(exchange, 409, "text/plain", "no watch is waiting\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        stream.complete(release(rate, count));
        send(exchange, 200, "text/plain", (notifications((int) Math.min(count, lineVersions.length)) + "\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@code /go?together=K}: waits until K contenders have asked, then releases K waiting watches at
     * once and answers all K, so contenders running side by side start their streams at the same
     * instant (with one {@code /go} each, a contender could release another's watch first).
     */
    private void goTogether(HttpExchange exchange, double rate, double count, int together) throws IOException {
        CompletableFuture<Void> mine;
        synchronized (barrier) {
            mine = released;
            if (++arrived == together) {
                arrived = 0;
                // the driver waits for this line before it starts the phases that run beside these streams
                System.out.println("GO together=" + together + " rate=" + rate);
                System.out.flush();
                released = new CompletableFuture<>();
                try {
                    for (int i = 0; i < together; i++) {
                        CompletableFuture<Release> stream = waiting.poll(60, TimeUnit.SECONDS);
                        if (stream != null) {
                            stream.complete(release(rate, count));
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                mine.complete(null);
            }
        }
        try {
            mine.get(10, TimeUnit.MINUTES);
        } catch (Exception e) {
            send(exchange, 409, "text/plain", "not every contender asked\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        send(exchange, 200, "text/plain", (notifications((int) Math.min(count, lineVersions.length)) + "\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** A stream's release, which becomes the one {@code /writes} answers for. */
    private Release release(double rate, double count) {
        CompletableFuture<long[]> writes = new CompletableFuture<>();
        lastWrites = writes;
        return new Release(rate, (int) Math.min(count, lineVersions.length), writes, false);
    }

    /** {@code /expire?changed=F}: arms the relist's list, then ends every waiting watch with a 410. */
    private void expire(HttpExchange exchange, double changed) throws IOException {
        relist = changedList(changed);
        int expired = 0;
        for (CompletableFuture<Release> go; (go = waiting.poll()) != null; expired++) {
            go.complete(new Release(0, 0, new CompletableFuture<>(), true));
        }
        send(exchange, 200, "text/plain", (expired + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The list with the resource version of the fraction {@code changed} of its pods, and its own, set to the final
     * one: a byte edit of each {@code "resourceVersion":"..."} (the list's first, then one per pod).
     */
    private byte[] changedList(double changed) {
        byte[] list = json.list();
        byte[] field = "\"resourceVersion\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] replacement = finalRv.getBytes(StandardCharsets.UTF_8);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(list.length + 1024);
        int copied = 0;
        int occurrence = 0;
        for (int at = indexOf(list, field, 0); at >= 0; at = indexOf(list, field, at + 1)) {
            int value = at + field.length;
            int item = occurrence++ - 1;
            boolean edit = item < 0 || Math.floor((item + 1) * changed) > Math.floor(item * changed);
            if (edit) {
                out.write(list, copied, value - copied);
                out.writeBytes(replacement);
                copied = value;
                while (list[copied] != '"') {
                    copied++;
                }
            }
        }
        out.write(list, copied, list.length - copied);
        return out.toByteArray();
    }

    private static int indexOf(byte[] bytes, byte[] part, int from) {
        outer:
        for (int i = from; i <= bytes.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** {@code /writes}: once the last released stream is written, each notification's resource version and write time. */
    private void writes(HttpExchange exchange, boolean keys) throws IOException {
        long[] writes;
        try {
            writes = lastWrites.get(10, TimeUnit.MINUTES);
        } catch (Exception e) {
            send(exchange, 409, "text/plain", ("the stream was not written: " + e + "\n").getBytes(StandardCharsets.UTF_8));
            return;
        }
        StringBuilder text = new StringBuilder(writes.length * (keys ? 64 : 24));
        for (int i = 0; i < writes.length; i++) {
            if (lineVersions[i] != 0) {
                text.append(lineVersions[i]).append(' ').append(writes[i]);
                if (keys) {
                    text.append(' ').append(lineKeys[i]);
                }
                text.append('\n');
            }
        }
        send(exchange, 200, "text/plain", text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The resource version of the last notification among the first {@code events} watch lines; 0 if none. */
    private long last(int events) {
        for (int i = Math.min(events, lineVersions.length) - 1; i >= 0; i--) {
            if (lineVersions[i] != 0) {
                return lineVersions[i];
            }
        }
        return 0;
    }

    /** How many of the first {@code events} watch lines are notifications (not bookmarks). */
    private int notifications(int events) {
        int notifications = 0;
        for (int i = 0; i < Math.min(events, lineVersions.length); i++) {
            if (lineVersions[i] != 0) {
                notifications++;
            }
        }
        return notifications;
    }

    private void watch(HttpExchange exchange, Wire wire, String rv) throws IOException {
        int started = generation;
        exchange.getResponseHeaders().set("Content-Type", wire.watchType());
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        out.flush();
        if (listRv.equals(rv)) {
            CompletableFuture<Release> go = new CompletableFuture<>();
            waiting.add(go);
            Release how;
            try {
                how = go.get(10, TimeUnit.MINUTES);
            } catch (Exception e) {
                waiting.remove(go);
                return;
            }
            if (how.expire()) {
                out.write(wire.expired());
                out.flush();
                return;
            }
            try {
                if (how.rate() <= 0) {
                    int end = wire.starts()[how.count()];
                    for (int from = 0; from < end; from += 1 << 16) {
                        out.write(wire.events(), from, Math.min(1 << 16, end - from));
                    }
                    out.flush();
                    how.writes().complete(new long[0]);
                } else {
                    how.writes().complete(paced(out, wire, how.rate(), how.count()));
                }
            } catch (IOException | RuntimeException e) {
                how.writes().completeExceptionally(e);
                throw e;
            }
        }
        while (generation == started) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            out.write(wire.bookmark());
            out.flush();
        }
    }

    /**
     * Writes event i at start + i/rate and answers when each one left (stamped before the write, so a
     * client's latency includes the server's write and the loopback), so clients can compute latency.
     */
    private long[] paced(OutputStream out, Wire wire, double rate, int events) throws IOException {
        long[] writes = new long[events];
        long start = System.nanoTime();
        for (int i = 0; i < events; i++) {
            long due = start + (long) (i * 1e9 / rate);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            writes[i] = Harness.epochMicros();
            out.write(wire.events(), wire.starts()[i], wire.starts()[i + 1] - wire.starts()[i]);
            out.flush();
        }
        return writes;
    }

    private static void send(HttpExchange exchange, int code, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
        // in 64 KB slices, like the watch: written whole, the 275 MB list of N = 50k ran the server out of
        // heap (3.7 GB of live byte arrays) once a few contenders had fetched it
        OutputStream out = exchange.getResponseBody();
        for (int from = 0; from < body.length; from += 1 << 16) {
            out.write(body, from, Math.min(1 << 16, body.length - from));
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw != null) {
            for (String part : raw.split("&")) {
                int eq = part.indexOf('=');
                q.put(eq < 0 ? part : part.substring(0, eq),
                        eq < 0 ? "" : java.net.URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return q;
    }
}
