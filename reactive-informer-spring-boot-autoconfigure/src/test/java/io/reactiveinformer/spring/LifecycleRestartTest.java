package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Spring Framework 7's test context cache pauses the contexts it keeps ({@code ConfigurableApplicationContext.pause()})
 * when a test class needs another one, and restarts them ({@code restart()}) when a later class reuses them: the
 * informers and controllers of a context paused and restarted that way still work.
 */
class LifecycleRestartTest {

    private static final Duration T = Duration.ofSeconds(20);

    static final Set<String> reconciled = ConcurrentHashMap.newKeySet();

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

        @Bean
        Controller recorder(SharedIndexInformer<V1ConfigMap> maps) {
            return Controller.builder(maps).name("recorder").reconciler(request -> {
                reconciled.add(request.name());
                return Mono.just(Result.done());
            }).build();
        }
    }

    @Test
    void aPausedAndRestartedContextKeepsInformingAndReconciling() {
        runner.run(context -> {
            ConfigurableApplicationContext app = (ConfigurableApplicationContext) context.getSourceApplicationContext();
            SimulatedApiServer server = context.getBean(SimulatedApiServer.class);
            SharedIndexInformer<?> maps = context.getBean(SharedIndexInformer.class);

            app.pause();
            assertThat(maps.isStopped()).as("informers are not pauseable: their caches stay warm").isFalse();
            server.state().create(configMap("while-paused"));
            app.restart();
            server.state().create(configMap("after-restart"));

            StepVerifier.create(Convergence.until(
                            () -> reconciled.containsAll(Set.of("while-paused", "after-restart")), T,
                            Schedulers.parallel()))
                    .expectComplete().verify(T);
            assertThat(maps.isStopped()).isFalse();
            assertThat(context.getBean(InformersHealthIndicator.class).health().getStatus().getCode()).isEqualTo("UP");
        });
    }

    @Test
    void aStoppedContextSaysItCannotStartAgainInsteadOfPretending() {
        runner.run(context -> {
            ConfigurableApplicationContext app = (ConfigurableApplicationContext) context.getSourceApplicationContext();
            app.stop();
            assertThat(context.getBean(SharedIndexInformer.class).isStopped()).isTrue();
            assertThatThrownBy(app::start).isInstanceOf(ApplicationContextException.class)
                    .rootCause().hasMessageContaining("cannot start again")
                    .hasMessageContaining("start a new one");
        });
    }

    private static V1ConfigMap configMap(String name) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name(name));
    }
}
