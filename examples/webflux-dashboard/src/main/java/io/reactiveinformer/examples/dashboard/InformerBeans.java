package io.reactiveinformer.examples.dashboard;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.informer.ObjectTransforms;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The informers, declared as beans: the starter starts them after refresh and stops them on close. */
@Configuration(proxyBeanMethods = false)
class InformerBeans {

    @Bean
    SharedIndexInformer<V1Pod> pods(SharedInformerFactory factory) {
        return factory.informer(InformerSpec.of(V1Pod.class).withTransform(ObjectTransforms.stripManagedFields()));
    }
}
