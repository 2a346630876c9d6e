package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.informer.SubscriberOptions;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** The informers' meters in the application's registry, and every customiser hook, applied in order. */
class MetricsAndCustomizersTest {

    private static final Duration T = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new OwnedLoopsStallGuard())
            .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                    ReactiveInformerAutoConfiguration.class))
            .withPropertyValues("reactive-informer.simulated.enabled=true", "reactive-informer.wait-for-sync=true")
            .withUserConfiguration(Beans.class);

    /** What the customisers saw, in the order they ran. */
    static final List<String> applied = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        SharedIndexInformer<V1ConfigMap> maps(SharedInformerFactory factory) {
            return factory.informer(V1ConfigMap.class);
        }

        // declared in the reverse of their order: @Order decides, not declaration
        @Bean
        @Order(2)
        KubernetesClientCustomizer secondClientCustomizer() {
            return builder -> applied.add("client 2");
        }

        @Bean
        @Order(1)
        KubernetesClientCustomizer firstClientCustomizer() {
            return builder -> {
                applied.add("client 1");
                builder.httpClient(http -> {
                    applied.add("http client");
                    return http;
                });
            };
        }

        @Bean
        @Order(2)
        SharedInformerFactoryCustomizer secondFactoryCustomizer() {
            return builder -> {
                applied.add("factory 2");
                builder.namespace("team-b");
            };
        }

        @Bean
        @Order(1)
        SharedInformerFactoryCustomizer firstFactoryCustomizer() {
            return builder -> {
                applied.add("factory 1");
                builder.namespace("team-a");
            };
        }
    }

    @Test
    void everyCustomizerAppliesInItsOrderAndTheLastWordWins() {
        applied.clear();
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(applied).containsSubsequence("client 1", "client 2")
                    .containsSubsequence("client 1", "http client")
                    .containsSubsequence("client 2", "factory 1", "factory 2");
            assertThat(context.getBean(SharedIndexInformer.class).spec().namespace())
                    .as("the factory customisers' namespace, the later one winning").isEqualTo("team-b");
            assertThat(context.getBean(KubernetesClient.class)).isNotNull();
        });
    }

    @Test
    void informerMetersLandInTheApplicationsRegistryWithoutPerConnectionSeries() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            SharedIndexInformer<?> maps = context.getBean(SharedIndexInformer.class);
            String name = maps.name();
            assertThat(registry.get("informer.relists").tag("informer", name).counter().count())
                    .as("the initial list").isGreaterThanOrEqualTo(1);
            assertThat(registry.find("informer.last.sync.age").tag("informer", name).gauge()).isNotNull();

            context.getBean(SimulatedApiServer.class).state()
                    .create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("team-b").name("counted")));
            StepVerifier.create(Convergence.until(() -> registry.get("informer.events").tag("informer", name)
                            .tag("type", "ADDED").counter().count() >= 1, T, Schedulers.parallel()))
                    .expectComplete().verify(T);

            // a named subscriber is a series; an SSE stream's or an unnamed handler's would be one per connection
            Disposable named = maps.notifications(SubscriberOptions.defaults().withName("audit")).subscribe();
            Disposable perConnection = maps.notifications(SubscriberOptions.defaults().withName("sse-42")).subscribe();
            Disposable unnamed = maps.notifications(SubscriberOptions.defaults()).subscribe();
            assertThat(registry.find("informer.subscriber.buffer.depth").gauges())
                    .extracting(g -> g.getId().getTag("subscriber")).containsExactly("audit");
            named.dispose();
            perConnection.dispose();
            unnamed.dispose();
            StepVerifier.create(Convergence.until(
                            () -> registry.find("informer.subscriber.buffer.depth").gauges().isEmpty(), T,
                            Schedulers.parallel()))
                    .expectComplete().verify(T);

            assertThat(registry.getMeters()).extracting(Meter::getId).extracting(Meter.Id::getName)
                    .as("only the informers' meters: no client or connection series").allMatch(n -> n.startsWith("informer."));
        });
    }
}
