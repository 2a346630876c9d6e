// In the decoders' package (a split package on the class path, where benchmarks run) because the
// streaming decoders are internal to the client.
package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Watch-stream decode throughput: a stream of {@link #EVENTS} MODIFIED events of realistic pods
 * (~5 KB each: labels, annotations, managedFields, two containers, status), fed in 16 KB chunks as
 * the network delivers them, decoded into {@code V1Pod}s; beside Jackson's own parse of the same
 * bytes into trees, a token walk that skips every object, and the side-by-side ceiling's blocking bind
 * into {@code V1Pod}s (what every peer's design is bound by). One op = the whole stream; MB/s =
 * ops/s x {@link #streamBytes} / 1e6, events/s = ops/s x {@link #EVENTS}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WatchDecodeBenchmark {

    static final int EVENTS = 200;
    static final int CHUNK = 16 * 1024;

    private final KubernetesJson json = KubernetesJson.defaults();
    private final JsonMapper plain = JsonMapper.builder()
            .disable(tools.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    byte[] stream;
    int streamBytes;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        byte[] pod;
        try (InputStream in = WatchDecodeBenchmark.class.getResourceAsStream("/io/reactiveinformer/benchmarks/codec/pod.json")) {
            pod = in.readAllBytes();
        }
        ObjectNode template = (ObjectNode) plain.readTree(pod);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < EVENTS; i++) {
            ObjectNode p = template.deepCopy();
            ObjectNode meta = (ObjectNode) p.get("metadata");
            meta.put("name", "web-7d4b9c8f6d-" + i);
            meta.put("resourceVersion", Integer.toString(200_000 + i));
            ObjectNode event = plain.createObjectNode().put("type", "MODIFIED").set("object", p);
            out.write(json.encode(event));
            out.write('\n');
        }
        stream = out.toByteArray();
        streamBytes = stream.length;
        System.out.printf("%n[setup] %d events, %d bytes (%.0f bytes per event)%n", EVENTS, streamBytes,
                (double) streamBytes / EVENTS);
    }

    @Benchmark
    public void decodeToV1Pod(Blackhole bh) {
        WatchEventDecoder<V1Pod> decoder = new WatchEventDecoder<>(json, V1Pod.class, "benchmark");
        for (int from = 0; from < stream.length; from += CHUNK) {
            decoder.feed(ByteBuffer.wrap(stream, from, Math.min(CHUNK, stream.length - from)), bh::consume);
        }
        decoder.end();
    }

    /** A watch event line as Jackson binds it: the ceiling's decode, one thread, blocking, no checks. */
    public static final class Event {
        public String type;
        public V1Pod object;
    }

    @Benchmark
    public void ceilingToV1Pod(Blackhole bh) {
        try (tools.jackson.databind.MappingIterator<Event> events = json.mapper().readerFor(Event.class).readValues(stream)) {
            while (events.hasNext()) {
                bh.consume(events.next());
            }
        }
    }

    @Benchmark
    public void jacksonTree(Blackhole bh) {
        try (JsonParser p = plain.createParser(stream)) {
            while (p.nextToken() != null) {
                JsonNode event = plain.readTree(p);
                bh.consume(event);
            }
        }
    }

    @Benchmark
    public int jacksonSkipChildren() {
        int events = 0;
        try (JsonParser p = plain.createParser(stream)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t == JsonToken.START_OBJECT) {
                    p.skipChildren();
                    events++;
                }
            }
        }
        return events;
    }

    /** Checks the decode path before measuring it. */
    public static void main(String[] args) throws IOException {
        WatchDecodeBenchmark b = new WatchDecodeBenchmark();
        b.setUp();
        int[] count = {0};
        WatchEventDecoder<V1Pod> decoder = new WatchEventDecoder<>(b.json, V1Pod.class, "check");
        decoder.feed(ByteBuffer.wrap(b.stream), (WatchEvent<V1Pod> e) -> count[0]++);
        decoder.end();
        System.out.println(count[0] + " events decoded");
    }
}
