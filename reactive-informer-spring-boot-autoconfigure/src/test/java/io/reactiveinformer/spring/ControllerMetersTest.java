package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A controller bean built without any metrics configuration reports its queue's and its own meters in
 * Boot's registry: Boot adds its registry to Micrometer's global one, the controllers' default.
 */
class ControllerMetersTest {

    private static final Duration T = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new OwnedLoopsStallGuard())
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    SimulatedApiServerAutoConfiguration.class, ReactiveInformerAutoConfiguration.class))
            .withPropertyValues("reactive-informer.simulated.enabled=true", "reactive-informer.wait-for-sync=true")
            .withUserConfiguration(Beans.class);

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        SharedIndexInformer<V1ConfigMap> maps(SharedInformerFactory factory) {
            return factory.informer(V1ConfigMap.class);
        }

        @Bean
        Controller counted(SharedIndexInformer<V1ConfigMap> maps) {
            return Controller.builder(maps).name("counted").reconciler(request -> Mono.just(Result.done())).build();
        }
    }

    @Test
    void aControllersMetersAreInBootsRegistryWithoutCode() {
        runner.run(context -> {
            MeterRegistry boot = context.getBean(MeterRegistry.class);
            context.getBean(SimulatedApiServer.class).state()
                    .create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("one")));

            StepVerifier.create(Convergence.until(() -> adds(boot) >= 1, T, Schedulers.parallel()))
                    .expectComplete().verify(T);
            assertThat(boot.find("controller_reconcile_timeouts_total").tag("name", "counted").functionCounter())
                    .isNotNull();
        });
    }

    /** The controller's queue's {@code workqueue.adds} in {@code registry}; 0 while it has none. */
    private static double adds(MeterRegistry registry) {
        Counter adds = registry.find("workqueue.adds").tag("name", "counted").counter();
        return adds == null ? 0 : adds.count();
    }
}
