package io.reactiveinformer.test.server;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * What the simulated server takes from a CustomResourceDefinition ({@code apiextensions.k8s.io/v1}):
 * the group, {@code names.plural} and {@code names.kind}, the scope, the one served version, whether
 * it has a {@code status} subresource, and its {@code openAPIV3Schema}, by which objects are pruned
 * and validated. The rest ({@code scale} subresource, printer columns, conversion, CEL rules,
 * {@code default}s) is not honoured.
 *
 * <p>A definition serving several versions is refused: the real server keeps one object behind every
 * served version and converts between them, which this server does not.
 *
 * @param type              the resource, with {@link DynamicObject} as its model
 * @param statusSubresource whether the served version declares {@code subresources.status}
 * @param schema            the served version's structural schema
 */
record CustomResourceDefinition(ResourceType<DynamicObject> type, boolean statusSubresource, Schema schema) {

    /** Reads a definition; {@link IllegalArgumentException} naming what is missing or not supported. */
    static CustomResourceDefinition of(JsonNode definition) {
        if (!"CustomResourceDefinition".equals(definition.path("kind").asString(""))
                || !definition.path("apiVersion").asString("").startsWith("apiextensions.k8s.io/")) {
            throw new IllegalArgumentException("not an apiextensions.k8s.io CustomResourceDefinition: kind "
                    + definition.path("kind").asString("(none)"));
        }
        JsonNode spec = definition.path("spec");
        String group = required(spec.path("group"), "spec.group");
        String plural = required(spec.path("names").path("plural"), "spec.names.plural");
        String kind = required(spec.path("names").path("kind"), "spec.names.kind");
        List<JsonNode> served = new ArrayList<>();
        for (JsonNode version : spec.path("versions")) {
            if (version.path("served").asBoolean(false)) {
                served.add(version);
            }
        }
        if (served.size() != 1) {
            throw new IllegalArgumentException("the simulated server serves exactly one version of a custom resource"
                    + " (it does not convert between versions); " + group + "/" + plural + " serves " + served.size());
        }
        JsonNode version = served.get(0);
        boolean namespaced = !"Cluster".equals(spec.path("scope").asString("Namespaced"));
        ResourceType<DynamicObject> type = ResourceType.dynamic(group, required(version.path("name"),
                "spec.versions[].name"), plural, kind, namespaced);
        JsonNode schema = version.path("schema").path("openAPIV3Schema");
        if (!schema.isObject()) {
            throw new IllegalArgumentException(group + "/" + plural + " has no spec.versions[].schema.openAPIV3Schema");
        }
        return new CustomResourceDefinition(type, version.path("subresources").has("status"), Schema.of(schema));
    }

    private static String required(JsonNode value, String field) {
        String text = value.asString("");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("the CustomResourceDefinition has no " + field);
        }
        return text;
    }
}
