package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Two applications in one JVM (two cached test contexts, a test context beside a plain {@code SpringApplication}):
 * closing one leaves the other's client and simulated server running, because each runs on event loops its own
 * context owns, not on Reactor Netty's global ones, which Spring's {@link ReactorResourceFactory} (there in any
 * WebFlux application or {@code WebClient} user) disposes when its context stops.
 */
class OwnedEventLoopsTest {

    private static final Duration T = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new OwnedLoopsStallGuard())
            .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                    ReactiveInformerAutoConfiguration.class))
            .withPropertyValues("reactive-informer.simulated.enabled=true", "reactive-informer.wait-for-sync=true")
            .withUserConfiguration(Beans.class);

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        SharedIndexInformer<V1ConfigMap> maps(SharedInformerFactory factory) {
            return factory.informer(V1ConfigMap.class);
        }
    }

    @Test
    void closingAnotherContextThatDisposesTheGlobalLoopsLeavesThisOnesClientServerAndInformersRunning() {
        runner.run(first -> {
            SimulatedApiServer server = first.getBean(SimulatedApiServer.class);
            SharedIndexInformer<?> maps = first.getBean(SharedIndexInformer.class);
            // a second application, as a WebFlux one is: its ReactorResourceFactory uses the global loops
            runner.withBean(ReactorResourceFactory.class).run(second -> {
                assertThat(second).hasNotFailed();
                assertThat(second.getBean(SharedIndexInformer.class).isSynced()).isTrue();
            });

            // through the first application's client to its server: both still have their loops
            first.getBean(KubernetesClient.class).resource(V1ConfigMap.class).inNamespace("default")
                    .create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("after")))
                    .block(T);
            StepVerifier.create(Convergence.until(() -> maps.lister().namespace("default").get("after") != null, T,
                            Schedulers.parallel()))
                    .expectComplete().verify(T);
            assertThat(maps.health().consecutiveFailures()).isZero();
            assertThat(server.requests()).filteredOn(RequestInfo::isWatch)
                    .as("the first watch was never cut: no second one").hasSize(1);
        });
    }
}
