package io.reactiveinformer.examples.readme;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.spring.InformerSse;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/** The README's minimal WebFlux app, verbatim (imports aside); {@link PodsAppTest} runs it. */
@SpringBootApplication
public class PodsApp {
    public static void main(String[] args) {
        SpringApplication.run(PodsApp.class, args);
    }

    @Bean // started after refresh (readiness follows its sync), stopped before the server's graceful shutdown
    SharedIndexInformer<V1Pod> pods(SharedInformerFactory factory) {
        return factory.informer(V1Pod.class);
    }

    @RestController
    record Pods(SharedIndexInformer<V1Pod> pods, InformerSse sse) {
        @GetMapping("/pods") // Boot's Jackson writes pods as the API server does
        List<V1Pod> list() {
            return pods.lister().list();
        }

        @GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE) // pods, synced, changes, heartbeats
        Flux<ServerSentEvent<Object>> events(@RequestHeader(name = "Last-Event-ID", required = false) String lastId) {
            return sse.stream(pods, lastId);
        }
    }
}
