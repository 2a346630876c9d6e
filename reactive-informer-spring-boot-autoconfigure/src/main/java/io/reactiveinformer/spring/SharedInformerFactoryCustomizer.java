package io.reactiveinformer.spring;

import io.reactiveinformer.informer.SharedInformerFactory;

/**
 * Adjusts the auto-configured {@link SharedInformerFactory} before it is built (schedulers, reflector
 * options, resync, metrics). Every bean of this type applies, in {@code @Order}, after the properties.
 */
@FunctionalInterface
public interface SharedInformerFactoryCustomizer {

    void customize(SharedInformerFactory.Builder builder);
}
