package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.codec.KubernetesJson;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class ParallelBinderTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int ITEMS = 40;
    /** More than any test's list: every batch goes to the workers. */
    private static final long UNBOUNDED = 1L << 30;

    private final KubernetesJson json = KubernetesJson.defaults();
    /** Tasks handed to the "workers", which run only when a test says so. */
    private final List<Runnable> queued = Collections.synchronizedList(new ArrayList<>());
    private final Scheduler held = Schedulers.fromExecutor(queued::add);
    /** Tasks handed to the tail scheduler at the end of the body, run only when a test says so. */
    private final List<Runnable> queuedTail = Collections.synchronizedList(new ArrayList<>());
    private final Scheduler heldTail = Schedulers.fromExecutor(queuedTail::add);
    private final ObjectListDecoder<V1ConfigMap> decoder = new ObjectListDecoder<>(json, V1ConfigMap.class, "GET /cm");

    @Test
    void workersFinishingInAnyOrderGiveThePageInTheServersOrder() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        feedItemByItem(binder, list(ITEMS));
        assertThat(queued).as("one task per buffer that completed an item").hasSize(ITEMS);

        List<Runnable> reversed = new ArrayList<>(queued);
        Collections.reverse(reversed);
        reversed.forEach(Runnable::run);

        StepVerifier.create(binder.result().map(ParallelBinderTest::names))
                .expectNext(names(ITEMS))
                .expectComplete()
                .verify(WAIT);
    }

    @Test
    void theReaderNeverBindsAtTheEndWhatNoWorkerStartedGoesToATailTaskToo() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        feedItemByItem(binder, list(ITEMS));
        queued.subList(0, 10).forEach(Runnable::run);

        List<ObjectList<V1ConfigMap>> pages = new ArrayList<>();
        binder.result().subscribe(pages::add);
        assertThat(pages).as("nothing bound on the reader's thread at the end").isEmpty();
        assertThat(queuedTail).as("one task for the %d batches no worker had started", ITEMS - 10).hasSize(1);

        queuedTail.forEach(Runnable::run);
        assertThat(pages).as("the page did not wait for the busy workers").hasSize(1);
        assertThat(names(pages.get(0))).isEqualTo(names(ITEMS));
        queued.forEach(Runnable::run);
        assertThat(pages).as("the workers' tasks came too late: no second page").hasSize(1);
    }

    @Test
    void theReaderBindsItselfOnceTheWorkersHaveTheirShareOfBytesSoMemoryStaysBounded() {
        // each item is 64 to 66 bytes: the workers get the first three, the reader binds the rest
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, 3 * 60);
        feedItemByItem(binder, list(ITEMS));

        assertThat(queued).as("batches handed to workers; the reader bound the other %d", ITEMS - 3).hasSize(3);
        queued.forEach(Runnable::run);
        StepVerifier.create(binder.result().map(ParallelBinderTest::names))
                .expectNext(names(ITEMS))
                .expectComplete()
                .verify(WAIT);
    }

    @Test
    void aMalformedItemBoundByAWorkerStopsTheReaderAtItsNextBuffer() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        byte[] bytes = list(ITEMS).replace("\"name\":\"cm-3\"", "\"name\":[3]").getBytes(StandardCharsets.UTF_8);
        int half = bytes.length / 2;
        binder.offer(decoder.feed(ByteBuffer.wrap(bytes, 0, half)));
        queued.forEach(Runnable::run);

        assertThatThrownBy(() -> binder.offer(decoder.feed(ByteBuffer.wrap(bytes, half, bytes.length - half))))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("GET /cm")
                .hasMessageContaining("item 3");
    }

    @Test
    void aMalformedItemInTheLastBuffersFailsThePage() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        feedItemByItem(binder, list(ITEMS).replace("\"name\":\"cm-39\"", "\"name\":{}"));
        queued.forEach(Runnable::run);

        StepVerifier.create(binder.result())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(DecodeException.class).hasMessageContaining("item 39"))
                .verify(WAIT);
    }

    @Test
    void aBatchsRawBytesGoOnceItIsBoundNotAtTheEndOfThePage() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        WeakReference<byte[]> raw = offerFirstItem(binder, list(ITEMS));
        assertThat(queued).hasSize(1);
        assertThat(collected(raw)).as("queued, not bound yet: its task holds the bytes").isFalse();

        queued.get(0).run();

        assertThat(collected(raw)).as("bound, and the page still open").isTrue();
    }

    @Test
    void theBinderLetsGoOfThePageOnceItIsEmitted() {
        ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(decoder, held, heldTail, UNBOUNDED);
        feedItemByItem(binder, list(ITEMS));
        queued.forEach(Runnable::run);

        WeakReference<V1ConfigMap> first = firstItemOfPage(binder);

        assertThat(collected(first)).as("the binder, still referenced, keeps no bound item").isTrue();
    }

    @Test
    void onRealWorkersEveryPageKeepsTheServersOrder() {
        String list = list(2_000);
        List<String> expected = names(2_000);
        for (int round = 0; round < 20; round++) {
            ObjectListDecoder<V1ConfigMap> fresh = new ObjectListDecoder<>(json, V1ConfigMap.class, "GET /cm");
            ParallelBinder<V1ConfigMap> binder = new ParallelBinder<>(fresh, Schedulers.parallel(), Schedulers.boundedElastic(), 4 * 700);
            byte[] bytes = list.getBytes(StandardCharsets.UTF_8);
            for (int from = 0; from < bytes.length; from += 700) {
                binder.offer(fresh.feed(ByteBuffer.wrap(bytes, from, Math.min(700, bytes.length - from))));
            }
            StepVerifier.create(binder.result().map(ParallelBinderTest::names))
                    .expectNext(expected)
                    .expectComplete()
                    .verify(WAIT);
        }
    }

    /** Feeds one buffer per item (and one for the envelope's tail), as a network delivering small chunks would. */
    private void feedItemByItem(ParallelBinder<V1ConfigMap> binder, String list) {
        byte[] bytes = list.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        for (int i = 1; i <= ITEMS; i++) {
            int end = i < ITEMS ? list.indexOf("{\"metadata\"", list.indexOf("cm-" + (i - 1) + "\"")) : bytes.length;
            binder.offer(decoder.feed(ByteBuffer.wrap(bytes, from, end - from)));
            from = end;
        }
    }

    /** Offers the buffer that completes the list's first item; only the binder keeps what it offered. */
    private WeakReference<byte[]> offerFirstItem(ParallelBinder<V1ConfigMap> binder, String list) {
        byte[] bytes = list.getBytes(StandardCharsets.UTF_8);
        int end = list.indexOf("{\"metadata\"", list.indexOf("cm-0\""));
        ListDecoder.Batch batch = decoder.feed(ByteBuffer.wrap(bytes, 0, end));
        assertThat(batch.items()).hasSize(1);
        binder.offer(batch);
        return new WeakReference<>(batch.items().get(0).bytes());
    }

    /** The page's first item, which nothing but the page holds (the subscriber keeps only the weak reference). */
    private static WeakReference<V1ConfigMap> firstItemOfPage(ParallelBinder<V1ConfigMap> binder) {
        AtomicReference<WeakReference<V1ConfigMap>> first = new AtomicReference<>();
        binder.result().subscribe(page -> first.set(new WeakReference<>(page.items().get(0))));
        assertThat(first.get()).as("the page, emitted at once").isNotNull();
        return first.get();
    }

    /** Whether full collections clear {@code ref}: whether nothing else reaches its object. */
    private static boolean collected(WeakReference<?> ref) {
        for (int i = 0; i < 10 && ref.get() != null; i++) {
            System.gc();
        }
        return ref.get() == null;
    }

    private static String list(int n) {
        StringBuilder b = new StringBuilder("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"77\"},\"items\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"metadata\":{\"name\":\"cm-").append(i)
                    .append("\",\"namespace\":\"shop\"},\"data\":{\"k\":\"v").append(i).append("\"}}");
        }
        return b.append("]}").toString();
    }

    private static List<String> names(int n) {
        return IntStream.range(0, n).mapToObj(i -> "cm-" + i).toList();
    }

    private static List<String> names(ObjectList<V1ConfigMap> page) {
        assertThat(page.resourceVersion()).isEqualTo("77");
        return page.items().stream().map(cm -> cm.getMetadata().getName()).toList();
    }
}
