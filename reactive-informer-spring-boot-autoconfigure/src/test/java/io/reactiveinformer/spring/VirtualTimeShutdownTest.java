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
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * With {@code reactive-informer.simulated.virtual-time=true} the starter's timers and, here, the controller's own
 * run on a clock that nobody advances while the context closes: the controller-shutdown bound must still hold, on
 * the wall clock, when a reconcile never ends. Before, the bound ran on the virtual clock and close hung for good.
 */
class VirtualTimeShutdownTest {

    private static final Duration T = Duration.ofSeconds(20);

    static final AtomicInteger reconciles = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        SharedIndexInformer<V1ConfigMap> maps(SharedInformerFactory factory) {
            return factory.informer(V1ConfigMap.class);
        }

        /** On the virtual clock, and a reconcile that never ends. */
        @Bean
        Controller hung(SharedIndexInformer<V1ConfigMap> maps,
                        @Qualifier(ReactiveInformerAutoConfiguration.SCHEDULER_BEAN) VirtualTimeScheduler clock) {
            return Controller.builder(maps).name("hung").scheduler(clock).reconciler(request -> {
                reconciles.incrementAndGet();
                return Mono.never();
            }).build();
        }
    }

    @Test
    void closingTheContextWithAHungReconcileInVirtualTimeEndsWithinTheBoundOnTheWallClock() {
        new ApplicationContextRunner()
                .withInitializer(new OwnedLoopsStallGuard())
                .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                        ReactiveInformerAutoConfiguration.class))
                .withPropertyValues("reactive-informer.simulated.enabled=true",
                        "reactive-informer.simulated.virtual-time=true", "reactive-informer.wait-for-sync=true",
                        "reactive-informer.controller-shutdown-timeout=300ms")
                .withUserConfiguration(Beans.class)
                .run(context -> {
                    context.getBean(SimulatedApiServer.class).state()
                            .create(new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name("a")));
                    StepVerifier.create(Convergence.until(() -> reconciles.get() > 0, T, Schedulers.parallel()))
                            .expectComplete().verify(T);
                    SharedIndexInformer<?> maps = context.getBean(SharedIndexInformer.class);
                    ConfigurableApplicationContext app =
                            (ConfigurableApplicationContext) context.getSourceApplicationContext();

                    long start = System.nanoTime();
                    // off the test thread, so that a close that hangs fails this test at the deadline
                    Mono.fromRunnable(app::close).subscribeOn(Schedulers.boundedElastic()).block(T);
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    System.out.println("context close in virtual time with a hung reconcile took " + millis
                            + " ms (bound 300 ms)");
                    assertThat(millis).as("the 300 ms bound, on the wall clock").isGreaterThanOrEqualTo(300)
                            .isLessThan(5_000);
                    assertThat(maps.isStopped()).isTrue();
                });
    }
}
