package io.reactiveinformer.leaderelection;

/**
 * Where meters go when nobody said: Micrometer's global registry when Micrometer is on the class path, else
 * nowhere. Spring Boot adds its own registry to the global one ({@code management.metrics.use-global-registry},
 * on by default), so a Boot application sees these meters without code. Typed {@code Object} so that
 * Micrometer stays an optional dependency.
 */
final class GlobalMeterRegistry {

    private GlobalMeterRegistry() {
    }

    /** The global registry, or {@code null} without Micrometer. */
    static Object orNull() {
        try {
            Class.forName("io.micrometer.core.instrument.Metrics", false, GlobalMeterRegistry.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError absent) {
            return null;
        }
        return io.micrometer.core.instrument.Metrics.globalRegistry;
    }
}
