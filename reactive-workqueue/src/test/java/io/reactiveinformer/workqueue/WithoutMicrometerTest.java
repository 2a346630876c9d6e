package io.reactiveinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Micrometer is optional: the queue loads and works in a class loader that cannot see it. */
class WithoutMicrometerTest {

    @Test
    void queueWorksWithoutMicrometerOnTheClasspath() throws Exception {
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

            Class<?> workQueue = isolated.loadClass(WorkQueue.class.getName());
            assertThat(workQueue.getClassLoader()).isSameAs(isolated);
            Object builder = workQueue.getMethod("builder").invoke(null);
            Object queue = builder.getClass().getMethod("build").invoke(builder);
            Method add = workQueue.getMethod("add", Object.class);
            add.invoke(queue, "a");
            add.invoke(queue, "a");
            add.invoke(queue, "b");

            assertThat(workQueue.getMethod("size").invoke(queue)).isEqualTo(2);
            Object get = workQueue.getMethod("get").invoke(queue);
            Object item = get.getClass().getMethod("block").invoke(get);
            assertThat(item).isEqualTo("a");
        }
    }
}
