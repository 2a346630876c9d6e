package io.reactiveinformer.benchmarks.sidebyside;

import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Retained heap per decoded pod with the official client's Gson ({@code io.kubernetes.client.openapi.JSON},
 * as its {@code ApiClient} decodes a LIST), no informer: the counterpart of
 * {@code io.reactiveinformer.benchmarks.codec.RetainedHeap}, same corpus, same method.
 * Arguments: {@code LIST_JSON [histogram]}.
 */
public final class GsonRetainedHeap {

    private GsonRetainedHeap() {
    }

    public static void main(String[] args) throws Exception {
        Path list = Path.of(args[0]);
        boolean histogram = args.length > 1 && args[1].equals("histogram");
        decode(list);
        long empty = Harness.settledHeapAfterGc();
        List<V1Pod> pods = decode(list);
        long held = Harness.settledHeapAfterGc();
        if (histogram) {
            System.out.println(HeapProbe.histogram(40));
        }
        System.out.printf("RESULT codec=official-gson n=%d bytes_per_object=%d%n", pods.size(),
                (held - empty) / pods.size());
        if (pods.isEmpty()) {
            throw new IllegalStateException("no pods");
        }
    }

    private static List<V1Pod> decode(Path list) throws IOException {
        try (Reader in = Files.newBufferedReader(list, StandardCharsets.UTF_8)) {
            V1PodList page = JSON.getGson().fromJson(in, V1PodList.class);
            return page.getItems();
        }
    }
}
