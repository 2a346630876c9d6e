package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.reactiveinformer.api.FencedWriteException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WriteFence;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.config.ClientConfig;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServer;
import reactor.test.StepVerifier;

/** Writes in a context with a {@link WriteFence} are sent only while it admits them; reads always are. */
class WriteFenceTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final byte[] POD = Fixtures.bytes("pod.json");

    /** Every byte that reached the server, requests whole or not. */
    private final AtomicLong bytesReceived = new AtomicLong();
    private final FakeApiServer server = new FakeApiServer(HttpServer.create().doOnChannelInit((observer, channel, address) ->
            channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    bytesReceived.addAndGet(((ByteBuf) msg).readableBytes());
                    ctx.fireChannelRead(msg);
                }
            })));
    private final KubernetesClient client = KubernetesClient.create(
            ClientConfig.forServer(URI.create(server.url())).withNamespace("shop"));
    private final ResourceClient<V1Pod> pods = client.resource(V1Pod.class);

    WriteFenceTest() {
        server.handle((req, res) -> res.header("Content-Type", "application/json").sendByteArray(Mono.just(POD)));
    }

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    @Test
    void aWriteTheFenceNoLongerAdmitsFailsTypedAndNoByteReachesTheServer() {
        WriteFence ended = WriteFence.of("the term of Lease shop/leader", () -> false);

        StepVerifier.create(pods.patch("web", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}")
                        .contextWrite(ended::putIn))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(FencedWriteException.class)
                        .hasMessageContaining("PATCH /api/v1/namespaces/shop/pods/web")
                        .hasMessageContaining("the term of Lease shop/leader has ended")
                        .satisfies(f -> assertThat(((FencedWriteException) f).isRetriable()).isFalse()))
                .verify(WAIT);
        StepVerifier.create(pods.delete("web").contextWrite(ended::putIn))
                .expectError(FencedWriteException.class)
                .verify(WAIT);
        StepVerifier.create(pods.create(new V1Pod().metadata(new V1ObjectMeta().name("web").namespace("shop")))
                        .contextWrite(ended::putIn))
                .expectError(FencedWriteException.class)
                .verify(WAIT);

        assertThat(bytesReceived).hasValue(0);
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void readsAreNeverFenced() {
        WriteFence ended = WriteFence.of("the term of Lease shop/leader", () -> false);

        StepVerifier.create(pods.get("web").contextWrite(ended::putIn))
                .assertNext(pod -> assertThat(pod.getMetadata().getName()).isNotBlank())
                .verifyComplete();

        assertThat(server.requests()).extracting(FakeApiServer.Seen::method).containsExactly("GET");
    }

    /**
     * The authority can end while the write waits for a connection: the fence is asked again right before the
     * request's first byte, and the write is not sent (nor any of it: no headers, no partial body).
     */
    @Test
    void aFenceThatStopsAdmittingAfterSubscriptionStopsTheWriteBeforeItsFirstByte() {
        AtomicInteger asked = new AtomicInteger();
        WriteFence endsOnTheSecondQuestion = WriteFence.of("the term of Lease shop/leader",
                () -> asked.getAndIncrement() == 0);

        StepVerifier.create(pods.patch("web", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}")
                        .contextWrite(endsOnTheSecondQuestion::putIn))
                .expectError(FencedWriteException.class)
                .verify(WAIT);

        assertThat(asked).hasValue(2);
        assertThat(bytesReceived).hasValue(0);
        // the connection the refused write was given is not left half-used: the next write goes through
        StepVerifier.create(pods.patch("web", PatchType.MERGE, "{}")).expectNextCount(1).verifyComplete();
        assertThat(server.requests()).extracting(FakeApiServer.Seen::method).containsExactly("PATCH");
    }

    @Test
    void anAdmittedWriteIsSentAndTheFenceAskedOnSubscriptionAndBeforeSending() {
        AtomicInteger asked = new AtomicInteger();
        WriteFence held = WriteFence.of("the term of Lease shop/leader", () -> {
            asked.incrementAndGet();
            return true;
        });

        StepVerifier.create(pods.patch("web", PatchType.MERGE, "{}").contextWrite(held::putIn))
                .expectNextCount(1)
                .verifyComplete();

        assertThat(asked).hasValue(2);
        assertThat(server.requests()).extracting(FakeApiServer.Seen::method).containsExactly("PATCH");
    }
}
