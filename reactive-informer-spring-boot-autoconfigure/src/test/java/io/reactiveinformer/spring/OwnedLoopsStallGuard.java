package io.reactiveinformer.spring;

import io.reactiveinformer.test.junit.EventLoopStallGuard;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.netty.resources.LoopResources;

/**
 * Puts the event loops a test context owns ({@link InformerEventLoops}: the client's and the simulated server's)
 * under the {@link EventLoopStallGuard}, which watches Reactor Netty's global loops by itself only.
 */
final class OwnedLoopsStallGuard implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        context.getBeanFactory().addBeanPostProcessor(new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof InformerEventLoops loops) {
                    EventLoopStallGuard.watch(loops.resources().onServer(LoopResources.DEFAULT_NATIVE));
                    EventLoopStallGuard.watch(loops.resources().onClient(LoopResources.DEFAULT_NATIVE));
                }
                return bean;
            }
        });
    }
}
