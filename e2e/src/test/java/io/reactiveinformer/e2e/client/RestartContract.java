package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import reactor.core.publisher.ConnectableFlux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A watch across an API server restart, at the client level: the open watch ends (with a
 * {@link TransportException}, or normally), requests fail with a {@link TransportException} while the
 * server is down, and afterwards a watch from the last version either resumes or answers 410 Gone,
 * whichever the server does, and a fresh list has every object.
 */
abstract class RestartContract extends ClientContract {

    RestartContract(Backend backend) {
        super(backend);
    }

    @Test
    void aWatchEndsWhenTheServerGoesDownAndResumesOrIsGoneAfterItStarts() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("restart"));
        String from = await(maps.create(configMap("before", Map.of()))).getMetadata().getResourceVersion();
        ConnectableFlux<WatchEvent<V1ConfigMap>> watch = maps.watch(WatchOptions.from(from).withTimeoutSeconds(300))
                .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                .replay();
        watch.connect();
        String last = await(maps.create(configMap("while-watched", Map.of()))).getMetadata().getResourceVersion();
        StepVerifier.create(watch.take(1))
                .assertNext(e -> assertThat(describe(e)).isEqualTo("ADDED while-watched"))
                .verifyComplete();

        backend().stopApiServer();
        Optional<Throwable> end;
        Throwable whileDown;
        try {
            end = watch.then(Mono.<Throwable>empty()).onErrorResume(Mono::just).blockOptional(TIMEOUT);
            whileDown = maps.list(ListOptions.none()).then(Mono.<Throwable>empty()).onErrorResume(Mono::just)
                    .block(TIMEOUT);
        } finally {
            backend().startApiServer();
        }
        String created = await(maps.create(configMap("after", Map.of()))).getMetadata().getResourceVersion();
        List<String> resumed = maps.watch(WatchOptions.from(last).withTimeoutSeconds(2))
                .filter(e -> e.type() != WatchEvent.Type.BOOKMARK)
                .map(ClientContract::describe)
                .collectList()
                .onErrorResume(KubernetesApiException.Gone.class, gone -> Mono.just(List.of("410 Gone")))
                .block(TIMEOUT);
        ObjectList<V1ConfigMap> relisted = await(maps.list(ListOptions.none()));

        end.ifPresent(e -> assertThat(e).as("how the open watch ended").isInstanceOf(TransportException.class));
        assertThat(whileDown).isInstanceOf(TransportException.class);
        assertThat(resumed).as("a watch from the last version seen before the restart")
                .isIn(List.of("ADDED after"), List.of("410 Gone"));
        assertThat(relisted.items()).extracting(m -> m.getMetadata().getName())
                .containsExactly("after", "before", "while-watched");
        assertThat(rv(relisted.resourceVersion())).isGreaterThanOrEqualTo(rv(created));
        StepVerifier.create(maps.watch(WatchOptions.from(relisted.resourceVersion()).withTimeoutSeconds(60))
                        .filter(e -> e.type() != WatchEvent.Type.BOOKMARK))
                .then(() -> maps.delete("before").subscribe())
                .assertNext(e -> assertThat(describe(e)).isEqualTo("DELETED before"))
                .thenCancel()
                .verify(TIMEOUT);
    }
}
