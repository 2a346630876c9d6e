package io.reactiveinformer.test.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.test.Churn;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Same seed and script, same bytes: state, uids, timestamps (virtual clock), and seeded faults. */
class DeterminismTest {

    @Test
    void sameSeedAndScriptGiveTheSameByteStream() {
        byte[] first = run(11);
        byte[] second = run(11);
        assertThat(first).isEqualTo(second);
        assertThat(new String(first, StandardCharsets.UTF_8)).contains("\"uid\":").contains("ERROR").contains("status 5");
        assertThat(run(12)).isNotEqualTo(first);
    }

    private static byte[] run(long seed) {
        ClusterState state = ClusterState.builder().scheduler(VirtualTimeScheduler.create()).seed(seed).historyLimit(40)
                .build();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SimulatedApiServer server = SimulatedApiServer.start(state)) {
            new Churn(state, ResourceType.of(V1ConfigMap.class), "shop", seed).run(60);
            server.faults()
                    .random(seed, 0.5, RequestInfo.reads(), List.of(Fault.internalError(),
                            Fault.tooManyRequests(Duration.ofSeconds(2))))
                    .random(seed, 1.0, RequestInfo.watches(), List.of(Fault.closeAfterBytes(700),
                            Fault.closeAfterEvents(3), Fault.closeAfterBytes(1500), Fault.expiredWatch()));
            String base = "/api/v1/namespaces/shop/configmaps";
            record(out, RawHttp.exchange(server, HttpClient.create(ConnectionProvider.newConnection())
                    .baseUrl(server.url().toString()).post().uri(base)
                    .send(ByteBufFlux.fromString(Mono.just("{\"metadata\":{\"generateName\":\"gen-\"}}")))));
            for (String query : List.of("?limit=5", "", "?labelSelector=churn", "?limit=3&resourceVersion=0",
                    "?watch=true&resourceVersion=1", "?watch=true&resourceVersion=30", "?watch=true",
                    "?watch=true&resourceVersion=45&allowWatchBookmarks=true", "?limit=2", "?resourceVersion=2")) {
                record(out, RawHttp.get(server, base + query));
            }
        }
        return out.toByteArray();
    }

    private static void record(ByteArrayOutputStream out, Mono<RawHttp.Result> request) {
        RawHttp.Result result = request.block(Duration.ofSeconds(10));
        out.writeBytes(("status " + result.status() + " " + (result.error() == null ? "complete" : "cut") + "\n")
                .getBytes(StandardCharsets.UTF_8));
        out.writeBytes(result.body());
        out.write('\n');
    }
}
