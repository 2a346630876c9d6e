// In the decoders' package (a split package on the class path, where benchmarks run) because the watch
// decoding pipeline is internal to the client.
package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.informer.Notification;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.watch.ListerWatcher;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One watch event's whole path, to measure what it allocates ({@code -prof gc}, {@code gc.alloc.rate.norm}:
 * bytes per event, all threads): the bytes of a MODIFIED event of the side-by-side corpus's pod (~5.5 KB,
 * {@code codec/pod.json}) in one buffer, as a server writes an event per chunk → the watch decoding pipeline
 * of {@code ResourceClient.watch} ({@link DecodedChunk#watchEvents}) → the reflector → the FIFO → the apply
 * loop's cache update → one subscriber's {@link Notification}. Each op is one event, over {@value #PODS} pods
 * synced first, each event a later version of one of them in turn.
 *
 * <ul>
 *   <li>{@code decode}: the decoder alone, bytes to {@code WatchEvent}.</li>
 *   <li>{@code inline}: the informer with delivery on {@link Schedulers#immediate()}, so the whole path runs
 *       on the benchmark thread before the emission returns. {@code source=objects} feeds decoded events
 *       (no decode), {@code subscribers=0} has no subscriber (no delivery): the differences between the
 *       four cells split the bytes into decode, apply and deliver.</li>
 *   <li>{@code paced}: as in production at 1,000 events/s: default schedulers, and each event waits until
 *       the subscriber has it before the next is sent, so every event finds the apply loop and the
 *       subscriber idle and schedules both (what the inline cells do not pay).</li>
 * </ul>
 *
 * <p>Times here are only indicative (the paced one includes two thread hand-offs and a park per event);
 * the allocation per event is what this benchmark is for, and it does not depend on the machine's load.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class WatchEventPathBenchmark {

    static final int PODS = 1_000;
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);

    /** The pods' list and one MODIFIED event per pod, as bytes and decoded. */
    @State(Scope.Benchmark)
    public static class Corpus {

        final KubernetesJson json = KubernetesJson.defaults();
        final List<V1Pod> listed = new ArrayList<>(PODS);
        final ByteBuf[] eventBytes = new ByteBuf[PODS];
        final List<WatchEvent<V1Pod>> events = new ArrayList<>(PODS);

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            JsonMapper plain = JsonMapper.builder().build();
            ObjectNode template;
            try (InputStream in = Corpus.class.getResourceAsStream("/io/reactiveinformer/benchmarks/codec/pod.json")) {
                template = (ObjectNode) plain.readTree(in.readAllBytes());
            }
            for (int i = 0; i < PODS; i++) {
                listed.add(json.decode(json.encode(pod(template, i, 1_000)), V1Pod.class));
                ObjectNode event = plain.createObjectNode().put("type", "MODIFIED").set("object", pod(template, i, 2_000 + i));
                byte[] bytes = (new String(json.encode(event), StandardCharsets.UTF_8) + "\n").getBytes(StandardCharsets.UTF_8);
                eventBytes[i] = Unpooled.wrappedBuffer(bytes);
                events.add(new WatchEvent<>(WatchEvent.Type.MODIFIED, json.decode(json.encode(event.get("object")), V1Pod.class)));
            }
        }

        private static ObjectNode pod(ObjectNode template, int i, int resourceVersion) {
            ObjectNode pod = template.deepCopy();
            ObjectNode meta = (ObjectNode) pod.get("metadata");
            meta.put("name", "web-7d4b9c8f6d-" + i);
            meta.put("resourceVersion", Integer.toString(resourceVersion));
            return pod;
        }

        /** Event {@code i}'s bytes, unread again: the decoder reads a view of them and leaves the buffer as it was. */
        ByteBuf bytes(int i) {
            return eventBytes[i].readerIndex(0);
        }
    }

    /** The decoder alone. */
    @State(Scope.Thread)
    public static class Decode {

        WatchEventDecoder<V1Pod> decoder;
        int next;

        @Setup(Level.Trial)
        public void setUp(Corpus corpus) {
            decoder = new WatchEventDecoder<>(corpus.json, V1Pod.class, "benchmark");
        }
    }

    @Benchmark
    public void decode(Corpus corpus, Decode state, Blackhole bh) {
        DecodedChunk<V1Pod> chunk = DecodedChunk.decode(state.decoder, corpus.bytes(state.next++ % PODS));
        bh.consume(chunk);
    }

    /** Where the events come from: bytes through the decoding pipeline, or decoded events. */
    public enum Source {
        BYTES, OBJECTS
    }

    /** An informer fed from a sink the benchmark emits into, with 0 or 1 subscribers. */
    @State(Scope.Thread)
    public static class Inline {

        @Param({"BYTES", "OBJECTS"})
        public Source source;

        @Param({"1", "0"})
        public int subscribers;

        final Feed feed = new Feed();

        @Setup(Level.Trial)
        public void setUp(Corpus corpus) throws InterruptedException {
            feed.start(corpus, source, subscribers, true);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            feed.stop();
        }
    }

    @Benchmark
    public long inline(Inline state) {
        state.feed.emitNext();
        return state.feed.counter == null ? 0 : state.feed.counter.received;
    }

    /** The whole path on the default schedulers, one event at a time. */
    @State(Scope.Thread)
    public static class Paced {

        final Feed feed = new Feed();

        @Setup(Level.Trial)
        public void setUp(Corpus corpus) throws InterruptedException {
            feed.start(corpus, Source.BYTES, 1, false);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            feed.stop();
        }
    }

    @Benchmark
    public long paced(Paced state) {
        Feed feed = state.feed;
        long target = feed.counter.received + 1;
        feed.emitNext();
        feed.counter.await(target);
        return target;
    }

    /** One informer and what feeds its watch. */
    static final class Feed {

        private Sinks.Many<ByteBuf> chunks;
        private Sinks.Many<WatchEvent<V1Pod>> decoded;
        private Corpus corpus;
        private Disposable running;
        Counter counter;
        private int next;

        void start(Corpus corpus, Source source, int subscribers, boolean inline) throws InterruptedException {
            this.corpus = corpus;
            CountDownLatch watching = new CountDownLatch(1);
            ObjectList<V1Pod> list = new ObjectList<>(corpus.listed, "1000", null, null);
            if (source == Source.BYTES) {
                chunks = Sinks.many().multicast().directAllOrNothing();
            } else {
                decoded = Sinks.many().multicast().directAllOrNothing();
            }
            ListerWatcher<V1Pod> listerWatcher = new ListerWatcher<>() {
                @Override
                public Mono<ObjectList<V1Pod>> list(ListOptions options) {
                    return Mono.just(list);
                }

                @Override
                public Flux<WatchEvent<V1Pod>> watch(WatchOptions options) {
                    Flux<WatchEvent<V1Pod>> events = chunks != null
                            ? DecodedChunk.watchEvents(chunks.asFlux(), new WatchEventDecoder<>(corpus.json, V1Pod.class, "benchmark"))
                            : decoded.asFlux();
                    return events.doOnSubscribe(s -> watching.countDown());
                }
            };
            SharedIndexInformer.Builder<V1Pod> builder = SharedIndexInformer.builder(V1Pod.class, listerWatcher).name("path");
            if (inline) {
                builder.deliveryScheduler(Schedulers.immediate());
            }
            SharedIndexInformer<V1Pod> informer = builder.build();
            if (subscribers == 1) {
                counter = new Counter();
                informer.notifications(SubscriberOptions.defaults().unbounded()).subscribe(counter);
            }
            running = informer.start();
            informer.hasSynced().block(SYNC_TIMEOUT);
            if (counter != null) {
                counter.await(PODS); // the initial adds, so that each measured event waits for its own notification
            }
            if (!watching.await(SYNC_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the informer did not start watching");
            }
        }

        void emitNext() {
            int i = next++ % PODS;
            if (chunks != null) {
                chunks.tryEmitNext(corpus.bytes(i)).orThrow();
            } else {
                decoded.tryEmitNext(corpus.events.get(i)).orThrow();
            }
        }

        void stop() {
            running.dispose();
            if (counter != null) {
                counter.dispose();
            }
        }
    }

    /** Counts notifications and wakes the waiting benchmark thread; called on one thread at a time. */
    static final class Counter extends BaseSubscriber<Notification<V1Pod>> {

        /** Written by the subscriber's drain task only (one signal at a time), read by the benchmark thread. */
        private volatile long received;
        private volatile Thread waiter;

        /** Parks the calling thread until {@code count} notifications have arrived. */
        void await(long count) {
            waiter = Thread.currentThread();
            while (received < count) {
                LockSupport.park(this);
            }
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            requestUnbounded();
        }

        @Override
        protected void hookOnNext(Notification<V1Pod> notification) {
            received = received + 1;
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
    }
}
