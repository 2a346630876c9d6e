package io.reactiveinformer.examples.dashboard;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.spring.InformerSse;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/** The pods as JSON and as a live stream; both read the informer's cache, never the API server. */
@RestController
class PodsController {

    private static final Comparator<V1Pod> BY_KEY = Comparator
            .comparing((V1Pod p) -> p.getMetadata().getNamespace())
            .thenComparing(p -> p.getMetadata().getName());

    private final SharedIndexInformer<V1Pod> pods;
    private final InformerSse sse;

    PodsController(SharedIndexInformer<V1Pod> pods, InformerSse sse) {
        this.pods = pods;
        this.sse = sse;
    }

    @GetMapping("/pods")
    List<V1Pod> pods() {
        return pods.lister().list().stream().sorted(BY_KEY).toList();
    }

    @GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    Flux<ServerSentEvent<Object>> events(@RequestHeader(name = "Last-Event-ID", required = false) String lastEventId) {
        return sse.stream(pods, lastEventId);
    }
}
