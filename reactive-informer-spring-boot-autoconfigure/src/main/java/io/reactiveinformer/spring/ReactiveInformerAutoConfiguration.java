package io.reactiveinformer.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.codec.KubernetesModule;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.informer.InformerMetrics;
import io.reactiveinformer.informer.MicrometerInformerMetrics;
import io.reactiveinformer.informer.NotificationModule;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.watch.ReflectorOptions;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client, the informer factory, the lifecycle that starts and stops informers (and controllers),
 * health, the {@code informers} actuator endpoint, Micrometer, the Jackson modules (Boot registers
 * {@code JacksonModule} beans in its mapper, which WebFlux's codecs use) and the SSE helper.
 *
 * <p>Timers of the SSE helper run on the bean named {@value #SCHEDULER_BEAN} when there is one (a
 * virtual-time scheduler in tests), else on {@code Schedulers.parallel()}. The controller-shutdown bound
 * is always on the wall clock: see {@link ControllerLifecycle}.
 */
// after the availability probes: our readiness post-processor must see the readiness group they create
@AutoConfiguration(afterName = {"io.reactiveinformer.spring.SimulatedApiServerAutoConfiguration",
        "org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration"})
@EnableConfigurationProperties(ReactiveInformerProperties.class)
@ImportRuntimeHints(ReactiveInformerRuntimeHints.class)
public class ReactiveInformerAutoConfiguration {

    /** The name of an optional {@code Scheduler} bean for the starter's timers. */
    public static final String SCHEDULER_BEAN = "reactiveInformerScheduler";

    /** Fails the refresh, before any bean is made, on a Jackson or Reactor the library cannot run with. */
    @Bean
    static BeanFactoryPostProcessor reactiveInformerDependencyVersions() {
        return beanFactory -> DependencyVersions.check();
    }

    @Bean
    @ConditionalOnMissingBean
    ClientConfig reactiveInformerClientConfig(ReactiveInformerProperties properties) {
        ClientConfig config = properties.getKubeconfig() != null
                ? ClientConfig.fromKubeconfig(List.of(properties.getKubeconfig()), properties.getContext())
                : properties.getContext() != null ? ClientConfig.fromKubeconfig(properties.getContext())
                : ClientConfig.load();
        return properties.getRequestTimeout() == null ? config : config.withRequestTimeout(properties.getRequestTimeout());
    }

    @Bean
    InformerEventLoops reactiveInformerEventLoops() {
        return new InformerEventLoops();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    KubernetesClient kubernetesClient(ClientConfig config, InformerEventLoops loops,
                                      ObjectProvider<KubernetesClientCustomizer> customizers) {
        KubernetesClient.Builder builder = KubernetesClient.builder(config).loopResources(loops.resources());
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    SharedInformerFactory sharedInformerFactory(KubernetesClient client, ReactiveInformerProperties properties,
                                                ObjectProvider<InformerMetrics.Provider> metrics,
                                                ObjectProvider<SharedInformerFactoryCustomizer> customizers) {
        SharedInformerFactory.Builder builder = SharedInformerFactory.builder(client);
        String namespace = properties.getNamespace();
        if ("*".equals(namespace)) {
            builder.namespace(null);
        } else if (namespace != null && !namespace.isBlank()) {
            builder.namespace(namespace);
        }
        ReflectorOptions reflector = ReflectorOptions.defaults().withStreamingList(properties.isStreamingList());
        if (properties.getPageSize() != null) {
            reflector = reflector.withPageSize(properties.getPageSize());
        }
        builder.reflectorOptions(reflector).defaultResyncPeriod(properties.getResyncPeriod());
        metrics.ifAvailable(builder::metrics);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    InformerRegistry informerRegistry(SharedInformerFactory factory, ObjectProvider<SharedIndexInformer<?>> informers) {
        return new InformerRegistry(factory, informers);
    }

    @Bean
    @ConditionalOnMissingBean
    InformerLifecycle informerLifecycle(InformerRegistry registry, ReactiveInformerProperties properties) {
        return new InformerLifecycle(registry, properties.isWaitForSync(), properties.getSyncTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    KubernetesModule kubernetesJacksonModule() {
        return new KubernetesModule();
    }

    @Bean
    @ConditionalOnMissingBean
    NotificationModule notificationJacksonModule() {
        return new NotificationModule();
    }

    private static Scheduler timers(ObjectProvider<Scheduler> scheduler) {
        return scheduler.getIfAvailable(Schedulers::parallel);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ServerSentEvent.class)
    static class SseConfiguration {

        @Bean
        @ConditionalOnMissingBean
        InformerSse informerSse(ReactiveInformerProperties properties,
                                @Qualifier(SCHEDULER_BEAN) ObjectProvider<Scheduler> scheduler,
                                ObjectProvider<JsonMapper> mapper) {
            JsonMapper json = mapper.getIfAvailable();
            return json == null
                    ? new InformerSse(properties.getSse().getHeartbeat(), properties.getSse().getIdleTimeout(),
                            properties.getBufferPolicy(), timers(scheduler))
                    : new InformerSse(properties.getSse().getHeartbeat(), properties.getSse().getIdleTimeout(),
                            properties.getBufferPolicy(), timers(scheduler), json);
        }

        /**
         * Puts each request's exchange in the Reactor context, where {@link InformerSse} finds the connection of a
         * stalled stream to close it.
         */
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
        ServerWebExchangeContextFilter serverWebExchangeContextFilter() {
            return new ServerWebExchangeContextFilter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Controller.class)
    static class ControllerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ControllerLifecycle controllerLifecycle(ObjectProvider<Controller> controllers,
                                                ReactiveInformerProperties properties) {
            return new ControllerLifecycle(controllers.orderedStream().toList(),
                    properties.getControllerShutdownTimeout());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class HealthConfiguration {

        /** Nested: its condition is of the health jar, which the outer condition requires. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator(InformersReadiness.INDICATOR)
        static class EnabledHealthConfiguration {

            @Bean
            @ConditionalOnMissingBean(name = "informersHealthIndicator")
            InformersHealthIndicator informersHealthIndicator(InformerRegistry registry) {
                return new InformersHealthIndicator(registry);
            }

            @Configuration(proxyBeanMethods = false)
            @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
            static class ReadinessConfiguration {

                @Bean
                InformersReadiness informersReadiness(Environment environment) {
                    return new InformersReadiness(environment);
                }
            }
        }
    }

    /** Only where the actuator's auto-configuration (which serves endpoints) is: it declares the condition. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
    static class EndpointConfiguration {

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnAvailableEndpoint(InformersEndpoint.class)
        static class AvailableEndpointConfiguration {

            @Bean
            @ConditionalOnMissingBean
            InformersEndpoint informersEndpoint(InformerRegistry registry) {
                return new InformersEndpoint(registry);
            }
        }
    }

    /**
     * {@code reactive-informer.simulated.enabled=true} without the test kit: fail the start rather than fall back to
     * the kubeconfig, which would point a test or a demo at a real cluster.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "reactive-informer.simulated", name = "enabled", havingValue = "true")
    @ConditionalOnMissingClass("io.reactiveinformer.test.server.SimulatedApiServer")
    static class SimulatedServerMissingConfiguration {

        /** Fails the refresh before any bean (the client's configuration included) is made. */
        @Bean
        static BeanFactoryPostProcessor reactiveInformerSimulatedServerMissing() {
            return beanFactory -> {
                throw new IllegalStateException("reactive-informer.simulated.enabled=true needs the simulated API"
                        + " server of io.reactiveinformer:reactive-informer-test-core on the class path (a test or"
                        + " runtime dependency); without it the client would connect to the cluster of the"
                        + " kubeconfig instead. Add the dependency, or remove the property to use that cluster.");
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class MetricsConfiguration {

        /** Resolved when the first informer is built, by which time Boot's registry exists. */
        @Bean
        @ConditionalOnMissingBean
        InformerMetrics.Provider reactiveInformerMetrics(ObjectProvider<MeterRegistry> registry) {
            return (name, gauges) -> {
                MeterRegistry meters = registry.getIfAvailable();
                InformerMetrics.Provider provider = meters == null ? InformerMetrics.Provider.noop()
                        : AggregateInformerMetrics.wrap(MicrometerInformerMetrics.provider(meters));
                return provider.register(name, gauges);
            };
        }
    }
}
