// In the decoders' package (a split package on the class path, where benchmarks run) because the
// streaming decoders are internal to the client.
package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.benchmarks.sidebyside.Harness;
import io.reactiveinformer.benchmarks.sidebyside.HeapProbe;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Retained heap per decoded pod with our codec, no informer: decodes a side-by-side corpus's
 * {@code list.json} (write one with {@code Corpus DIR N M}) in 64 KB chunks, as the network delivers
 * it, and prints used heap after full GC with the pods held minus after they were dropped, per pod.
 * {@code GsonRetainedHeap} in {@code benchmarks/peers} does the same with the official client's Gson.
 * Arguments: {@code LIST_JSON [histogram]}; {@code histogram} also prints the live-object class
 * histogram (top classes) while the pods are held.
 */
public final class RetainedHeap {

    private RetainedHeap() {
    }

    public static void main(String[] args) throws Exception {
        Path list = Path.of(args[0]);
        boolean histogram = args.length > 1 && args[1].equals("histogram");
        decode(list); // warm-up: mappings built, caches filled, as in a running client
        long empty = Harness.settledHeapAfterGc();
        List<V1Pod> pods = decode(list);
        long held = Harness.settledHeapAfterGc();
        if (histogram) {
            System.out.println(HeapProbe.histogram(40));
        }
        System.out.printf("RESULT codec=reactive-informer n=%d bytes_per_object=%d%n", pods.size(),
                (held - empty) / pods.size());
        if (pods.isEmpty()) {
            throw new IllegalStateException("no pods");
        }
    }

    private static List<V1Pod> decode(Path list) throws IOException {
        ObjectListDecoder<V1Pod> decoder = new ObjectListDecoder<>(KubernetesJson.defaults(), V1Pod.class, "list.json");
        byte[] chunk = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(list)) {
            int read;
            while ((read = in.read(chunk)) > 0) {
                decoder.feed(ByteBuffer.wrap(chunk, 0, read));
            }
        }
        ObjectList<V1Pod> page = decoder.end();
        return page.items();
    }
}
