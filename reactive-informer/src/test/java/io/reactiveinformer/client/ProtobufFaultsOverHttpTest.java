package io.reactiveinformer.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.codec.Fixtures;
import io.reactiveinformer.codec.KubernetesProtobuf;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.Reflector;
import io.reactiveinformer.watch.ReflectorEvent;
import io.reactiveinformer.watch.ReflectorOptions;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

/**
 * A malformed protobuf watch costs a failed attempt, never the reflector: the first watch a canned server
 * answers is broken (a frame cut short, a length beyond the stream, garbage); the reflector reports a
 * {@link DecodeException} naming the frame and its offset, tries again, and the next watch's event is applied.
 */
@Timeout(30)
class ProtobufFaultsOverHttpTest {

    private static final byte[] LIST = Fixtures.bytes("protobuf/configmaplist.pb");
    private static final byte[] WATCH = Fixtures.bytes("protobuf/configmap-watch.pb");
    private static final Duration RETRY = Duration.ofMillis(10);

    private final FakeApiServer server = new FakeApiServer();
    private final KubernetesClient client = KubernetesClient.create(
            ClientConfig.forServer(URI.create(server.url())).withNamespace("proto-corpus"));

    @AfterEach
    void close() {
        client.close();
        server.close();
    }

    static Stream<Arguments> faults() {
        UnaryOperator<byte[]> truncated = watch -> Arrays.copyOf(watch, watch.length - 7);
        UnaryOperator<byte[]> wrongLength = watch -> {
            byte[] broken = watch.clone();
            broken[3] = (byte) (broken[3] - 5); // the first frame's length, 5 bytes short of its event
            return broken;
        };
        UnaryOperator<byte[]> garbage = watch -> {
            byte[] broken = watch.clone();
            Arrays.fill(broken, 4, 40, (byte) 0xff);
            return broken;
        };
        return Stream.of(Arguments.of("a frame cut short", truncated), Arguments.of("a wrong length", wrongLength),
                Arguments.of("garbage in a frame", garbage));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("faults")
    void aMalformedWatchIsAFailedAttemptAndTheNextWatchIsApplied(String fault, UnaryOperator<byte[]> breaking) {
        byte[] broken = breaking.apply(WATCH);
        AtomicInteger watches = new AtomicInteger();
        server.handle((req, res) -> {
            boolean watch = req.uri().contains("watch=true");
            if (!watch) {
                return res.header("Content-Type", KubernetesProtobuf.MEDIA_TYPE).sendByteArray(Mono.just(LIST));
            }
            byte[] body = watches.getAndIncrement() == 0 ? broken : WATCH;
            return res.header("Content-Type", KubernetesProtobuf.WATCH_MEDIA_TYPE).sendByteArray(Mono.just(body));
        });
        ReflectorOptions options = ReflectorOptions.defaults().withStreamingList(false)
                .withBackoff(Backoff.defaults().withInitial(RETRY).withFactor(1.0).withCap(RETRY));
        Reflector<V1ConfigMap> reflector = Reflector.builder(ListerWatcher.of(client.resource(V1ConfigMap.class)))
                .options(options).build();

        List<ReflectorEvent<V1ConfigMap>> events = reflector.events()
                .takeUntil(e -> e instanceof ReflectorEvent.Applied<V1ConfigMap>)
                .collectList().block(Duration.ofSeconds(20));

        assertThat(events.get(0)).isInstanceOf(ReflectorEvent.Listed.class);
        assertThat(events).filteredOn(e -> e instanceof ReflectorEvent.Failed<V1ConfigMap>)
                .first()
                .satisfies(e -> assertThat(((ReflectorEvent.Failed<V1ConfigMap>) e).error())
                        .isInstanceOf(DecodeException.class)
                        .hasMessageContaining("frame 0")
                        .hasMessageContaining("at byte "));
        assertThat(events.get(events.size() - 1)).isInstanceOf(ReflectorEvent.Applied.class);
        assertThat(server.requests()).allSatisfy(r -> assertThat(r.headers().get("Accept"))
                .isEqualTo(ResourceClient.ACCEPT_PROTOBUF));
        assertThat(watches).hasValueGreaterThanOrEqualTo(2);
    }
}
