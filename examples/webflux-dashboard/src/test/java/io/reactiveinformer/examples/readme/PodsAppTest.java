package io.reactiveinformer.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import reactor.netty.http.client.HttpClient;

/** The README's app serves the simulated server's pods. */
class PodsAppTest {

    @Test
    void servesThePods() {
        SpringApplication app = new SpringApplication(PodsApp.class);
        app.setDefaultProperties(Map.of("reactive-informer.simulated.enabled", "true", "server.port", "0",
                "reactive-informer.wait-for-sync", "true"));
        try (ConfigurableApplicationContext context = app.run()) {
            context.getBean(SimulatedApiServer.class).state()
                    .create(new V1Pod().metadata(new V1ObjectMeta().namespace("default").name("web")));
            int port = context.getBean(Environment.class).getRequiredProperty("local.server.port", Integer.class);
            String events = HttpClient.create().get().uri("http://127.0.0.1:" + port + "/events")
                    // an event may span chunks: accumulate until the first added event is complete
                    .responseContent().asString().scan("", String::concat)
                    .filter(s -> s.contains("event:added") && s.indexOf("\n\n", s.indexOf("event:added")) >= 0)
                    .blockFirst(Duration.ofSeconds(20));
            assertThat(events).contains("\"key\":\"default/web\"");
            String pods = HttpClient.create().get().uri("http://127.0.0.1:" + port + "/pods")
                    .responseContent().aggregate().asString().block(Duration.ofSeconds(10));
            assertThat(pods).startsWith("[{").contains("\"name\":\"web\"");
        }
    }
}
