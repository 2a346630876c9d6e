package io.reactiveinformer.spring;

import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * With {@code reactive-informer.simulated.enabled=true} and {@code reactive-informer-test-core} on the
 * class path: a simulated API server on 127.0.0.1 (a {@link SimulatedApiServer} bean whose
 * {@code state()} a demo or test seeds and changes), on the client's event loops, and the client
 * configuration that points at it.
 * With {@code reactive-informer.simulated.virtual-time=true} too, a {@link VirtualTimeScheduler} bean
 * named {@value ReactiveInformerAutoConfiguration#SCHEDULER_BEAN} drives the SSE helper's timers
 * (heartbeats and idle guard): a test advances it instead of waiting. The controller-shutdown bound stays
 * on the wall clock, so closing the context never waits on a clock nobody advances.
 */
@AutoConfiguration
@ConditionalOnClass(SimulatedApiServer.class)
@ConditionalOnProperty(prefix = "reactive-informer.simulated", name = "enabled", havingValue = "true")
public class SimulatedApiServerAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SimulatedApiServer simulatedApiServer(InformerEventLoops loops) {
        return SimulatedApiServer.start(ClusterState.create(), loops.resources());
    }

    @Bean
    @ConditionalOnMissingBean
    ClientConfig reactiveInformerClientConfig(SimulatedApiServer server) {
        return server.clientConfig();
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(VirtualTimeScheduler.class)
    @ConditionalOnProperty(prefix = "reactive-informer.simulated", name = "virtual-time", havingValue = "true")
    static class VirtualTimeConfiguration {

        @Bean(name = ReactiveInformerAutoConfiguration.SCHEDULER_BEAN, destroyMethod = "dispose")
        @ConditionalOnMissingBean(name = ReactiveInformerAutoConfiguration.SCHEDULER_BEAN)
        VirtualTimeScheduler reactiveInformerScheduler() {
            return VirtualTimeScheduler.create();
        }
    }
}
