// In the decoders' package (a split package on the class path, where benchmarks run) because the
// streaming decoders are internal to the client.
package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * LIST decode: a page of {@link #ITEMS} realistic pods (~5 KB each) fed in 16 KB chunks as the network
 * delivers them. {@code scanAndBindOnOneThread}: this library's decoder with every batch bound on the
 * feeding thread; {@code scanAndBindInParallel}: as {@link ResourceClient#list} runs it, batches bound on
 * {@code Schedulers.parallel()} by a {@link ParallelBinder} while the feeding thread goes on;
 * {@code ceiling}: Jackson's blocking bind of the whole {@code V1PodList} on one thread (what every peer's design is bound by). One op = the whole page.
 * With {@code -jvmArgsAppend -DnoManagedFields=true} the pods have no {@code managedFields}, to see their share of the decode.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ListDecodeBenchmark {

    static final int ITEMS = 1000;
    static final int CHUNK = 16 * 1024;

    private final KubernetesJson json = KubernetesJson.defaults();
    private byte[] page;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        JsonMapper plain = JsonMapper.builder().build();
        byte[] pod;
        try (InputStream in = ListDecodeBenchmark.class.getResourceAsStream("/io/reactiveinformer/benchmarks/codec/pod.json")) {
            pod = in.readAllBytes();
        }
        ObjectNode template = (ObjectNode) plain.readTree(pod);
        ObjectNode list = plain.createObjectNode().put("kind", "PodList").put("apiVersion", "v1");
        list.putObject("metadata").put("resourceVersion", "300000");
        ArrayNode items = list.putArray("items");
        for (int i = 0; i < ITEMS; i++) {
            ObjectNode p = template.deepCopy();
            ((ObjectNode) p.get("metadata")).put("name", "web-7d4b9c8f6d-" + i);
            if (Boolean.getBoolean("noManagedFields")) {
                ((ObjectNode) p.get("metadata")).remove("managedFields");
            }
            items.add(p);
        }
        page = json.encode(list);
        System.out.printf("%n[setup] %d items, %d bytes%n", ITEMS, page.length);
    }

    @Benchmark
    public ObjectList<V1Pod> scanAndBindOnOneThread() {
        ObjectListDecoder<V1Pod> decoder = new ObjectListDecoder<>(json, V1Pod.class, "benchmark");
        List<V1Pod> items = new ArrayList<>(ITEMS);
        for (int from = 0; from < page.length; from += CHUNK) {
            items.addAll(decoder.bind(decoder.feed(ByteBuffer.wrap(page, from, Math.min(CHUNK, page.length - from)))));
        }
        return decoder.end(items);
    }

    @Benchmark
    public ObjectList<V1Pod> scanAndBindInParallel() {
        ObjectListDecoder<V1Pod> decoder = new ObjectListDecoder<>(json, V1Pod.class, "benchmark");
        ParallelBinder<V1Pod> binder = new ParallelBinder<>(decoder, Schedulers.parallel(), Schedulers.boundedElastic(), 16L << 20);
        for (int from = 0; from < page.length; from += CHUNK) {
            binder.offer(decoder.feed(ByteBuffer.wrap(page, from, Math.min(CHUNK, page.length - from))));
        }
        return binder.result().block();
    }

    @Benchmark
    public V1PodList ceiling() {
        return json.mapper().readerFor(V1PodList.class).readValue(page);
    }
}
