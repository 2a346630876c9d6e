package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1Pod;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Micrometer is optional: an informer loads, syncs and caches in a class loader that cannot see it. */
class InformerWithoutMicrometerTest {

    /** Runs inside the isolated class loader. */
    public static final class Probe implements java.util.function.Supplier<Integer> {
        @Override
        public Integer get() {
            SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class,
                    StaticLister.pods(FakePodServer.pod("a", "p1", "1", 1))).build();
            informer.start();
            informer.hasSynced().block();
            return informer.indexer().size();
        }
    }

    @Test
    void informerWorksWithoutMicrometerOnTheClasspath() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.contains("micrometer") && !entry.isEmpty()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        try (URLClassLoader isolated = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> isolated.loadClass("io.micrometer.core.instrument.MeterRegistry"))
                    .isInstanceOf(ClassNotFoundException.class);
            Class<?> probe = isolated.loadClass(Probe.class.getName());
            assertThat(probe.getClassLoader()).isSameAs(isolated);
            @SuppressWarnings("unchecked")
            java.util.function.Supplier<Integer> supplier =
                    (java.util.function.Supplier<Integer>) probe.getDeclaredConstructor().newInstance();
            assertThat(supplier.get()).isEqualTo(1);
        }
    }
}
