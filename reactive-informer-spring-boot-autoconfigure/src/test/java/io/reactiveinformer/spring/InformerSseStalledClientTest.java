package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.informer.BufferPolicy;
import io.reactiveinformer.informer.NotificationModule;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.InMemoryListerWatcher;
import io.reactiveinformer.test.server.ClusterState;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.HandlerStrategies;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.test.StepVerifier;

/**
 * A real WebFlux server on Reactor Netty and real TCP clients (issue 30): one reads the response headers and then
 * never reads again, keeping its socket open (a paused process); the other reads, slowly, all along. The informer
 * changes 32 KiB objects fast enough to fill both clients' socket buffers. The stalled client's subscriber must
 * leave the informer and its connection must close, within the idle timeout (2 s here) of its writes stalling;
 * the slow reader must not be cut.
 */
class InformerSseStalledClientTest {

    private static final ResourceType<V1ConfigMap> MAPS = ResourceType.of(V1ConfigMap.class);
    private static final Duration HEARTBEAT = Duration.ofMillis(250);
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);
    private static final int OBJECTS = 16;
    private static final int OBJECT_BYTES = 32 * 1024;
    private static final long SLOW_BYTES_PER_MS = 3_200;
    /** Bound for each wait: generous, for a loaded machine; the times taken are printed. */
    private static final Duration T = Duration.ofSeconds(60);

    private final ClusterState state = ClusterState.create();
    private final ScheduledExecutorService clients = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "sse-test-client");
        t.setDaemon(true);
        return t;
    });
    private SharedIndexInformer<V1ConfigMap> informer;
    private Disposable running;
    private DisposableServer server;

    @BeforeEach
    void start() {
        for (int i = 0; i < OBJECTS; i++) {
            state.create(map(i, 0));
        }
        informer = SharedIndexInformer.builder(V1ConfigMap.class, InMemoryListerWatcher.of(state, MAPS, "ns")).build();
        running = informer.start();
        informer.hasSynced().block(T);
        InformerSse sse = new InformerSse(HEARTBEAT, IDLE_TIMEOUT, BufferPolicy.COALESCE, Schedulers.parallel());
        HandlerStrategies strategies = HandlerStrategies.builder()
                .codecs(codecs -> codecs.defaultCodecs().jacksonJsonEncoder(new JacksonJsonEncoder(
                        KubernetesJson.mapperBuilder().addModule(new NotificationModule()).build())))
                .webFilter(new ServerWebExchangeContextFilter())
                .build();
        ReactorHttpHandlerAdapter handler = new ReactorHttpHandlerAdapter(RouterFunctions.toHttpHandler(
                RouterFunctions.route(RequestPredicates.GET("/events"), request -> ServerResponse.ok()
                        .contentType(MediaType.TEXT_EVENT_STREAM)
                        .body(BodyInserters.fromServerSentEvents(sse.stream(informer)))),
                strategies));
        server = HttpServer.create().host("127.0.0.1").port(0).handle(handler).bindNow();
    }

    @AfterEach
    void stop() {
        clients.shutdownNow();
        if (server != null) {
            server.disposeNow();
        }
        if (running != null) {
            running.dispose();
        }
    }

    @Test
    void aClientThatStopsReadingIsCutAndASlowReaderIsNot() throws Exception {
        int baseline = informer.handlerCount();
        try (Socket stalled = connect(4 * 1024); Socket slow = connect(0)) {
            AtomicLong slowBytes = new AtomicLong();
            AtomicBoolean slowEnded = new AtomicBoolean();
            InputStream slowIn = slow.getInputStream();
            // the slow reader: 3.2 MB/s, half of what the changes make. It reads by a byte budget that grows with the
            // time passed, not a fixed amount per wake-up: on a loaded machine its wake-ups come late, and a reader
            // that read 32 KiB per wake-up fell below its rate and, in a CI run, took longer than the idle timeout to take
            // in one batch of the server's writes (Reactor Netty asks for events in batches, megabytes of them here).
            slow.setSoTimeout(1);
            byte[] slowBuffer = new byte[64 * 1024];
            long slowStart = System.nanoTime();
            clients.scheduleWithFixedDelay(() -> {
                try {
                    long budget = (System.nanoTime() - slowStart) / 1_000_000 * SLOW_BYTES_PER_MS - slowBytes.get();
                    while (budget > 0) {
                        int n = slowIn.read(slowBuffer, 0, (int) Math.min(budget, slowBuffer.length));
                        if (n < 0) {
                            slowEnded.set(true);
                            return;
                        }
                        slowBytes.addAndGet(n);
                        budget -= n;
                    }
                } catch (SocketTimeoutException nothingYet) {
                    // nothing more to read this time
                } catch (IOException e) {
                    slowEnded.set(true);
                }
            }, 0, 10, TimeUnit.MILLISECONDS);
            await(() -> informer.handlerCount() == baseline + 2, "both clients subscribed");

            // 200 changes of 32 KiB objects a second (6.5 MB/s), until the test ends
            AtomicLong changes = new AtomicLong();
            clients.scheduleAtFixedRate(() -> {
                long step = changes.incrementAndGet();
                state.update(map((int) (step % OBJECTS), step));
            }, 0, 5, TimeUnit.MILLISECONDS);
            long changing = System.nanoTime();

            await(() -> informer.handlerCount() == baseline + 1, "the stalled client's subscriber left");
            long cut = System.nanoTime();
            System.out.printf("stalled SSE client: subscriber left %d ms after the changes began (%d changes,"
                            + " idle timeout %d ms); the slow reader had read %d bytes%n", (cut - changing) / 1_000_000,
                    changes.get(), IDLE_TIMEOUT.toMillis(), slowBytes.get());

            // the slow reader goes on through several more idle timeouts of stalled writes, and is not cut
            long readBefore = slowBytes.get();
            await(() -> slowEnded.get() || System.nanoTime() - cut > 3 * IDLE_TIMEOUT.toNanos()
                    && slowBytes.get() > readBefore + 4 * 1024 * 1024, "the slow reader read 4 MB more");
            assertThat(slowEnded).as("the slow reader was cut").isFalse();
            assertThat(informer.handlerCount()).isEqualTo(baseline + 1);
            System.out.printf("slow SSE client: read %d bytes in %d ms%n", slowBytes.get(),
                    (System.nanoTime() - changing) / 1_000_000);

            // the stalled client's connection was closed by the server: reading now drains what the buffers held,
            // then meets the end of the stream
            long drained = drainToEnd(stalled);
            System.out.printf("stalled SSE client: its connection had been closed; %d bytes were in the buffers%n",
                    drained);
        }
    }

    private static V1ConfigMap map(int i, long step) {
        String filler = "x".repeat(OBJECT_BYTES);
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("ns").name("map-" + i))
                .data(Map.of("step", Long.toString(step), "filler", filler));
    }

    /** A connected socket that sent the request and read the response headers, byte by byte (nothing more). */
    private Socket connect(int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);  // before connecting: the window scale is chosen then
        }
        socket.setSoTimeout((int) T.toMillis());
        socket.connect(new InetSocketAddress(server.host(), server.port()));
        socket.getOutputStream().write(("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        StringBuilder headers = new StringBuilder();
        while (!headers.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("response headers, got so far: %s", headers).isNotNegative();
            headers.append((char) b);
        }
        assertThat(headers.toString()).startsWith("HTTP/1.1 200");
        return socket;
    }

    /** Reads until the end of the stream, within {@link #T}; fails if the connection is still open then. */
    private static long drainToEnd(Socket socket) throws IOException {
        long deadline = System.nanoTime() + T.toNanos();
        socket.setSoTimeout(1000);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        while (System.nanoTime() < deadline) {
            try {
                int n = in.read(buffer);
                if (n < 0) {
                    return total;
                }
                total += n;
            } catch (SocketTimeoutException stillOpen) {
                // nothing came for a second: go on until the deadline
            } catch (IOException reset) {
                return total;
            }
        }
        throw new AssertionError("the stalled client's connection was still open " + T + " after it was cut ("
                + total + " bytes read)");
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        long start = System.nanoTime();
        StepVerifier.create(Convergence.until(condition, T, Schedulers.parallel()))
                .as(what)
                .expectComplete()
                .verify(T.plusSeconds(5));
        System.out.printf("%s after %d ms%n", what, (System.nanoTime() - start) / 1_000_000);
    }
}
