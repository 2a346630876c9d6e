package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveinformer.informer.SharedInformerFactory;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.aot.AotDetector;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.Environment;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * The application as Spring's AOT processing left it (the build runs {@code spring-boot:process-aot} before the
 * tests), run on the JVM: the bean definitions generated at build time, not configuration classes parsed now,
 * as in a native image. It starts, its informers sync against the embedded simulated server, and it serves
 * {@code /pods} and {@code /actuator/informers}.
 */
class AotProcessedApplicationTest {

    private static final Duration T = Duration.ofSeconds(30);

    @Test
    void theAotProcessedApplicationStartsSyncsAndServes() {
        SpringProperties.setFlag(AotDetector.AOT_ENABLED);
        LoopResources clientLoop = LoopResources.create("aot-test-client", 1, true);
        try {
            // the build processed the application with the simulated cluster (no $KUBECONFIG): the same here
            SpringApplication app = new SpringApplication(DashboardApplication.class);
            // names the generated initializer (DashboardApplication__ApplicationContextInitializer); else the
            // class whose main() is on the stack, the test runner's
            app.setMainApplicationClass(DashboardApplication.class);
            app.setDefaultProperties(Map.of("reactive-informer.simulated.enabled", "true",
                    "dashboard.demo-churn", "true", "server.port", "0"));
            try (ConfigurableApplicationContext context = app.run()) {
                assertThat(AotDetector.useGeneratedArtifacts()).isTrue();
                assertThat(context.containsBean(
                        "org.springframework.context.annotation.internalConfigurationAnnotationProcessor"))
                        .as("no configuration class parsed at run time").isFalse();
                context.getBean(SharedInformerFactory.class).waitForCacheSync().block(T);

                int port = context.getBean(Environment.class).getRequiredProperty("local.server.port", Integer.class);
                HttpClient http = HttpClient.create(ConnectionProvider.newConnection()).runOn(clientLoop)
                        .baseUrl("http://127.0.0.1:" + port);
                assertThat(http.get().uri("/pods").responseContent().aggregate().asString().block(T))
                        .as("the official models written through the starter's Jackson module")
                        .contains("\"kind\":\"Pod\"").contains("\"namespace\"");
                assertThat(http.get().uri("/actuator/informers").responseContent().aggregate().asString().block(T))
                        .contains("\"name\":\"V1Pod\"").contains("\"synced\":true");
            }
        } finally {
            SpringProperties.setProperty(AotDetector.AOT_ENABLED, null);
            clientLoop.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(T);
        }
    }
}
