package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * The field labels a resource can be selected by, as the real server's field-label conversion
 * functions and {@code ToSelectableFields} of each registry define them, with how each is read from
 * a stored object. Every resource supports {@code metadata.name} (and namespaced ones
 * {@code metadata.namespace}).
 */
final class FieldLabels {

    private static final Map<String, Map<String, Function<JsonNode, String>>> BY_RESOURCE = Map.of(
            "/pods", fields(
                    f("spec.nodeName", at("spec", "nodeName")),
                    f("spec.restartPolicy", at("spec", "restartPolicy")),
                    f("spec.schedulerName", at("spec", "schedulerName")),
                    f("spec.serviceAccountName", at("spec", "serviceAccountName")),
                    f("spec.hostNetwork", flag("spec", "hostNetwork")),
                    f("status.phase", at("status", "phase")),
                    f("status.podIP", object -> object.path("status").path("podIPs").path(0).path("ip").asString("")),
                    f("status.nominatedNodeName", at("status", "nominatedNodeName"))),
            "/events", fields(
                    f("involvedObject.kind", at("involvedObject", "kind")),
                    f("involvedObject.namespace", at("involvedObject", "namespace")),
                    f("involvedObject.name", at("involvedObject", "name")),
                    f("involvedObject.uid", at("involvedObject", "uid")),
                    f("involvedObject.apiVersion", at("involvedObject", "apiVersion")),
                    f("involvedObject.resourceVersion", at("involvedObject", "resourceVersion")),
                    f("involvedObject.fieldPath", at("involvedObject", "fieldPath")),
                    f("reason", at("reason")),
                    f("reportingComponent", at("reportingComponent")),
                    f("source", at("source", "component")),
                    f("type", at("type"))),
            "/secrets", fields(f("type", at("type"))),
            "/namespaces", fields(f("status.phase", at("status", "phase"))),
            "/nodes", fields(f("spec.unschedulable", flag("spec", "unschedulable"))),
            "/services", fields(f("spec.clusterIP", at("spec", "clusterIP")), f("spec.type", at("spec", "type"))),
            "/replicationcontrollers", fields(f("status.replicas", count("status", "replicas"))),
            "apps/replicasets", fields(f("status.replicas", count("status", "replicas"))),
            "batch/jobs", fields(f("status.successful", count("status", "succeeded"))));

    private FieldLabels() {
    }

    /**
     * How to read {@code label} of {@code type}'s objects; 400 with the real server's message when
     * the resource does not support it.
     */
    static Function<JsonNode, String> reader(ResourceType<?> type, String label) {
        switch (label) {
            case "metadata.name":
                return at("metadata", "name");
            case "metadata.namespace":
                return at("metadata", "namespace");
            default:
                break;
        }
        Map<String, Function<JsonNode, String>> own = BY_RESOURCE.get(type.group() + "/" + type.plural());
        if (own == null) {
            throw ApiError.badRequest("\"" + label + "\" is not a known field selector: only \"metadata.name\", "
                    + "\"metadata.namespace\"");
        }
        Function<JsonNode, String> reader = own.get(label);
        if (reader == null) {
            throw ApiError.badRequest("field label not supported: " + label);
        }
        return reader;
    }

    private static Function<JsonNode, String> at(String... path) {
        return object -> {
            JsonNode node = object;
            for (String step : path) {
                node = node.path(step);
            }
            return node.isValueNode() ? node.asString() : "";
        };
    }

    /** A boolean field, {@code false} when absent. */
    private static Function<JsonNode, String> flag(String... path) {
        Function<JsonNode, String> raw = at(path);
        return object -> Boolean.toString(Boolean.parseBoolean(raw.apply(object)));
    }

    /** A count, {@code 0} when absent. */
    private static Function<JsonNode, String> count(String... path) {
        Function<JsonNode, String> raw = at(path);
        return object -> {
            String value = raw.apply(object);
            return value.isEmpty() ? "0" : value;
        };
    }

    private record Field(String label, Function<JsonNode, String> reader) {
    }

    private static Field f(String label, Function<JsonNode, String> reader) {
        return new Field(label, reader);
    }

    private static Map<String, Function<JsonNode, String>> fields(Field... fields) {
        Map<String, Function<JsonNode, String>> out = new LinkedHashMap<>();
        for (Field field : fields) {
            out.put(field.label(), field.reader());
        }
        return out;
    }
}
