package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code reactive-informer.*} property is in the configuration metadata the processor generates (what IDEs
 * complete and document), with a type and a description free of Javadoc markup.
 */
class ConfigurationMetadataTest {

    @Test
    void everyBoundPropertyIsDescribed() throws Exception {
        Map<String, JsonNode> described = new HashMap<>();
        for (URL url : Collections.list(getClass().getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                JsonMapper.builder().build().readTree(in).path("properties")
                        .forEach(p -> described.put(p.path("name").asString(), p));
            }
        }
        List<String> bound = new ArrayList<>();
        collect("reactive-informer", ReactiveInformerProperties.class, bound);
        assertThat(bound).as("the walk found the nested groups too")
                .contains("reactive-informer.sse.heartbeat", "reactive-informer.simulated.enabled");

        assertThat(new TreeSet<>(described.keySet())).containsAll(bound);
        for (String name : bound) {
            JsonNode property = described.get(name);
            assertThat(property.path("type").asString()).as(name).isNotBlank();
            assertThat(property.path("description").asString()).as(name).isNotBlank().doesNotContain("{@");
        }
        assertThat(described).containsKey("management.health.informers.enabled");
    }

    /** Bean properties with a setter are leaves; a getter alone of one of our nested types is a group. */
    private static void collect(String prefix, Class<?> type, List<String> names) throws Exception {
        for (PropertyDescriptor property : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
            String name = prefix + "." + kebab(property.getName());
            if (property.getWriteMethod() != null) {
                names.add(name);
            } else if (property.getPropertyType().getEnclosingClass() == ReactiveInformerProperties.class) {
                collect(name, property.getPropertyType(), names);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
