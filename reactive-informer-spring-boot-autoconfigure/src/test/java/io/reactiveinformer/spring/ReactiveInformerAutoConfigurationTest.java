package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class ReactiveInformerAutoConfigurationTest {

    private static final Duration T = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new OwnedLoopsStallGuard())
            .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                    ReactiveInformerAutoConfiguration.class))
            .withPropertyValues("reactive-informer.simulated.enabled=true", "reactive-informer.wait-for-sync=true",
                    "reactive-informer.controller-shutdown-timeout=300ms",
                    "management.endpoints.web.exposure.include=informers")
            .withUserConfiguration(Beans.class);

    static final AtomicInteger reconciles = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        SharedIndexInformer<V1ConfigMap> maps(SharedInformerFactory factory) {
            return factory.informer(V1ConfigMap.class);
        }

        /** A reconcile that never ends: shutdown must not wait for it longer than the configured bound. */
        @Bean
        Controller hung(SharedIndexInformer<V1ConfigMap> maps) {
            return Controller.builder(maps).name("hung").reconciler(request -> {
                reconciles.incrementAndGet();
                return Mono.never();
            }).build();
        }
    }

    @Test
    void informerBeansStartAfterRefreshAndReportHealthyOnceSynced() {
        runner.run(context -> {
            SharedIndexInformer<?> maps = context.getBean(SharedIndexInformer.class);
            assertThat(maps.isSynced()).as("wait-for-sync held the refresh until the sync").isTrue();
            Health health = context.getBean(InformersHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsKey("V1ConfigMap");
            assertThat(context.getBean(InformersEndpoint.class).informers())
                    .singleElement().satisfies(view -> {
                        assertThat(view.name()).isEqualTo("V1ConfigMap");
                        assertThat(view.synced()).isTrue();
                        assertThat(view.healthy()).isTrue();
                        assertThat(view.stopCause()).isNull();
                        assertThat(view.handlers()).as("the controller's handler").isEqualTo(1);
                        assertThat(view.subscribers()).allSatisfy(s -> {
                            assertThat(s.name()).isEqualTo("hung");
                            assertThat(s.lagSeconds()).isNotNegative();
                        });
                    });
        });
    }

    @Test
    void aHungReconcileDoesNotHoldContextCloseBeyondTheBound() {
        runner.run(context -> {
            context.getBean(SimulatedApiServer.class).state()
                    .create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("a")));
            StepVerifier.create(Convergence.until(() -> reconciles.get() > 0, T, Schedulers.parallel()))
                    .expectComplete().verify(T);
            SharedIndexInformer<?> maps = context.getBean(SharedIndexInformer.class);
            long start = System.nanoTime();
            ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println("context close with a hung reconcile took " + millis + " ms (bound 300 ms)");
            assertThat(millis).isLessThan(5_000);
            assertThat(maps.isStopped()).isTrue();
        });
    }

    @Test
    void aReactiveWebApplicationGetsEachExchangeInTheReactorContextForTheSseStallGuard() {
        new ReactiveWebApplicationContextRunner()
                .withInitializer(new OwnedLoopsStallGuard())
                .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                        ReactiveInformerAutoConfiguration.class))
                .withPropertyValues("reactive-informer.simulated.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(ServerWebExchangeContextFilter.class)
                        .hasSingleBean(InformerSse.class));
        runner.run(context -> assertThat(context).doesNotHaveBean(ServerWebExchangeContextFilter.class)
                .hasSingleBean(InformerSse.class));
    }

    @Test
    void aStoppedInformerIsDown() {
        runner.run(context -> {
            context.getBean(SharedInformerFactory.class).shutdown().block(T);
            assertThat(context.getBean(InformersHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
        });
    }
}
