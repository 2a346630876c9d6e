package io.reactiveinformer.test.server;

import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Client-side apply's {@code kubectl.kubernetes.io/last-applied-configuration} annotation under server-side apply. */
final class LastAppliedAnnotation {

    private static final String ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

    private LastAppliedAnnotation() {
    }

    /**
     * kube-apiserver keeps client-side apply's annotation in step with a server-side apply by kubectl (its
     * {@code lastAppliedUpdater}): when the applied object has the annotation, it becomes the applied
     * configuration {@code patch}, keys sorted as Go encodes a map, without the annotation itself. Else
     * {@code kubectl diff} after {@code apply --server-side} would find the fields of the older client-side
     * apply to remove. The annotation is set after the apply's ownership is decided: nobody comes to own it.
     */
    static void sync(ObjectNode applied, JsonNode patch, String fieldManager, JsonMapper mapper) {
        if (!"kubectl".equals(fieldManager)
                || !(applied.path("metadata").path("annotations") instanceof ObjectNode annotations)
                || annotations.path(ANNOTATION).asString("").isEmpty()) {
            return;
        }
        ObjectNode configuration = (ObjectNode) patch.deepCopy();
        if (configuration.path("metadata").path("annotations") instanceof ObjectNode own) {
            own.remove(ANNOTATION);
        }
        annotations.put(ANNOTATION, mapper.writeValueAsString(sortedKeys(configuration, mapper)) + "\n");
    }

    private static JsonNode sortedKeys(JsonNode node, JsonMapper mapper) {
        if (node.isObject()) {
            TreeMap<String, JsonNode> byKey = new TreeMap<>();
            for (Map.Entry<String, JsonNode> property : node.properties()) {
                byKey.put(property.getKey(), property.getValue());
            }
            ObjectNode sorted = mapper.createObjectNode();
            byKey.forEach((k, v) -> sorted.set(k, sortedKeys(v, mapper)));
            return sorted;
        }
        if (node.isArray()) {
            ArrayNode sorted = mapper.createArrayNode();
            node.forEach(element -> sorted.add(sortedKeys(element, mapper)));
            return sorted;
        }
        return node;
    }

}
