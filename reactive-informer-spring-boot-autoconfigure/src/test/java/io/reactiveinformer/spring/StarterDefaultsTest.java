package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.Fault;
import io.reactiveinformer.test.server.FaultPlan;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** What the starter does without being asked, and what it refuses to do silently. */
class StarterDefaultsTest {

    private static final Duration T = Duration.ofSeconds(20);

    /** An application with the actuator's health endpoint and Boot's availability probes, as the starter's users have. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(new OwnedLoopsStallGuard())
            .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class,
                    AvailabilityHealthContributorAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class,
                    SimulatedApiServerAutoConfiguration.class, ReactiveInformerAutoConfiguration.class))
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
    void simulatedServerWithoutTheTestKitFailsTheStartSayingWhyInsteadOfUsingTheKubeconfig() {
        runner.withClassLoader(new FilteredClassLoader(SimulatedApiServer.class)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("reactive-informer.simulated.enabled=true")
                    .hasMessageContaining("io.reactiveinformer:reactive-informer-test-core");
        });
    }

    @Test
    void readinessFollowsTheInformersWithoutConfiguration() {
        runner.run(context -> {
            assertThat(context.getBean(HealthEndpointGroups.class).get("readiness").isMember("informers")).isTrue();
            acceptTraffic(context);
            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            assertThat(health.healthForPath("readiness").getStatus()).as("synced").isEqualTo(Status.UP);

            context.getBean(SharedInformerFactory.class).shutdown().block(T);
            assertThat(health.healthForPath("readiness").getStatus()).as("stopped: a stale cache")
                    .isEqualTo(Status.DOWN);
            assertThat(health.healthForPath("liveness").getStatus()).as("liveness is not the informers'")
                    .isEqualTo(Status.UP);
        });
    }

    /**
     * Refuses every list and watch from the start, until the test clears it: watches too, as an informer's
     * first sync is a streaming list (a watch) by default.
     */
    @Configuration(proxyBeanMethods = false)
    static class RefusingServer {

        @Bean
        FaultPlan refusing(SimulatedApiServer server) {
            return server.faults().always(RequestInfo.method("GET"), Fault.internalError());
        }
    }

    @Test
    void readinessWaitsForTheSync() {
        runner.withPropertyValues("reactive-informer.wait-for-sync=false").withUserConfiguration(RefusingServer.class)
                .run(context -> {
                    acceptTraffic(context);
                    HealthEndpoint health = context.getBean(HealthEndpoint.class);
                    assertThat(health.healthForPath("readiness").getStatus()).as("lists and watches refused: not synced")
                            .isEqualTo(Status.OUT_OF_SERVICE);

                    context.getBean(FaultPlan.class).clear();
                    StepVerifier.create(Convergence.until(
                                    () -> Status.UP.equals(health.healthForPath("readiness").getStatus()), T,
                                    Schedulers.parallel()))
                            .expectComplete().verify(T);
                    assertThat(context.getBean(SharedIndexInformer.class).isSynced()).isTrue();
                });
    }

    @Test
    void anApplicationThatExcludesTheInformersFromReadinessIsObeyed() {
        runner.withPropertyValues("management.endpoint.health.group.readiness.include=readinessState",
                "management.endpoint.health.group.readiness.exclude=informers").run(context -> {
            assertThat(context.getBean(HealthEndpointGroups.class).get("readiness").isMember("informers")).isFalse();
            acceptTraffic(context);
            context.getBean(SharedInformerFactory.class).shutdown().block(T);
            assertThat(context.getBean(HealthEndpoint.class).healthForPath("readiness").getStatus())
                    .isEqualTo(Status.UP);
        });
    }

    @Test
    void withoutTheActuatorAndHealthJarsTheStarterStillStarts() {
        new ApplicationContextRunner()
                .withInitializer(new OwnedLoopsStallGuard())
                .withConfiguration(AutoConfigurations.of(SimulatedApiServerAutoConfiguration.class,
                        ReactiveInformerAutoConfiguration.class))
                .withPropertyValues("reactive-informer.simulated.enabled=true", "reactive-informer.wait-for-sync=true")
                .withUserConfiguration(Beans.class)
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.health",
                        "org.springframework.boot.actuate"))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(InformersHealthIndicator.class)
                            .doesNotHaveBean(InformersEndpoint.class).doesNotHaveBean(InformersReadiness.class);
                    assertThat(context.getBean(SharedIndexInformer.class).isSynced()).isTrue();
                });
    }

    @Test
    void theIndicatorFollowsBootsSwitchesAndTheEndpointItsExposure() {
        runner.withPropertyValues("management.health.informers.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(InformersHealthIndicator.class);
            assertThat(context.getBean(HealthEndpointGroups.class).get("readiness").isMember("informers")).isFalse();
        });
        runner.run(context -> assertThat(context).hasSingleBean(InformersHealthIndicator.class)
                .doesNotHaveBean(InformersEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=health,informers")
                .run(context -> assertThat(context).hasSingleBean(InformersEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=informers",
                        "management.endpoint.informers.access=NONE")
                .run(context -> assertThat(context).doesNotHaveBean(InformersEndpoint.class));
    }

    /** What SpringApplication does once the application is ready; a context runner does not. */
    private static void acceptTraffic(ApplicationContext context) {
        AvailabilityChangeEvent.publish(context, LivenessState.CORRECT);
        AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
    }
}
