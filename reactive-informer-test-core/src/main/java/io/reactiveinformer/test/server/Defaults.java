package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The defaults (and the normalisation) the real server applies to the built-in kinds controllers
 * read most, as its defaulting functions and the admission plugins of a default kube-apiserver set
 * them: Pods (and the pod templates of Deployments), Namespaces, Secrets. Applied to a tree in place.
 */
final class Defaults {

    private Defaults() {
    }

    /** Applies the defaults of {@code type} to {@code object} (a create, or the new state of an update). */
    static void apply(ResourceType<?> type, ObjectNode object) {
        if (!ResourceTraits.isBuiltIn(type)) {
            return;
        }
        switch (type.group() + "/" + type.plural()) {
            case "/pods" -> {
                podSpec(child(object, "spec"));
                ObjectNode status = child(object, "status");
                putIfAbsent(status, "phase", "Pending");
                putIfAbsent(status, "qosClass", qosClass(object.path("spec")));
            }
            case "/namespaces" -> {
                ObjectNode spec = child(object, "spec");
                if (!spec.has("finalizers")) {
                    spec.putArray("finalizers").add("kubernetes");
                }
                putIfAbsent(child(object, "status"), "phase", "Active");
                ObjectNode labels = child(child(object, "metadata"), "labels");
                labels.put("kubernetes.io/metadata.name", object.path("metadata").path("name").asString());
            }
            case "/secrets" -> {
                putIfAbsent(object, "type", "Opaque");
                JsonNode stringData = object.remove("stringData");
                if (stringData != null && stringData.isObject()) {
                    ObjectNode data = child(object, "data");
                    for (Map.Entry<String, JsonNode> e : stringData.properties()) {
                        data.put(e.getKey(), Base64.getEncoder().encodeToString(
                                e.getValue().asString().getBytes(StandardCharsets.UTF_8)));
                    }
                }
            }
            case "apps/deployments" -> {
                ObjectNode spec = child(object, "spec");
                putIfAbsent(spec, "replicas", 1);
                ObjectNode strategy = child(spec, "strategy");
                putIfAbsent(strategy, "type", "RollingUpdate");
                if (strategy.path("type").asString().equals("RollingUpdate")) {
                    ObjectNode rolling = child(strategy, "rollingUpdate");
                    putIfAbsent(rolling, "maxUnavailable", "25%");
                    putIfAbsent(rolling, "maxSurge", "25%");
                }
                putIfAbsent(spec, "revisionHistoryLimit", 10);
                putIfAbsent(spec, "progressDeadlineSeconds", 600);
                ObjectNode template = child(spec, "template");
                child(template, "metadata");
                podSpec(child(template, "spec"));
                // a struct, not a pointer, in kube-apiserver's types: written as {} until a status write fills it
                child(object, "status");
            }
            default -> {
                // no defaults simulated for the other kinds
            }
        }
    }

    private static void podSpec(ObjectNode spec) {
        putIfAbsent(spec, "restartPolicy", "Always");
        putIfAbsent(spec, "terminationGracePeriodSeconds", 30);
        putIfAbsent(spec, "dnsPolicy", "ClusterFirst");
        child(spec, "securityContext");
        putIfAbsent(spec, "schedulerName", "default-scheduler");
        putIfAbsent(spec, "enableServiceLinks", true);
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode container : spec.path(list)) {
                if (container instanceof ObjectNode c) {
                    child(c, "resources");
                    putIfAbsent(c, "terminationMessagePath", "/dev/termination-log");
                    putIfAbsent(c, "terminationMessagePolicy", "File");
                    putIfAbsent(c, "imagePullPolicy", pullPolicy(c.path("image").asString("")));
                    for (JsonNode port : c.path("ports")) {
                        if (port instanceof ObjectNode p) {
                            putIfAbsent(p, "protocol", "TCP");
                        }
                    }
                }
            }
        }
    }

    /** {@code Always} for an untagged or {@code :latest} image, else {@code IfNotPresent}. */
    private static String pullPolicy(String image) {
        String last = image.substring(image.lastIndexOf('/') + 1);
        if (last.contains("@")) {
            return "IfNotPresent";
        }
        int colon = last.lastIndexOf(':');
        return colon < 0 || last.substring(colon + 1).equals("latest") ? "Always" : "IfNotPresent";
    }

    /** BestEffort without any request or limit; Guaranteed when every container limits cpu and memory to its requests. */
    private static String qosClass(JsonNode spec) {
        boolean any = false;
        boolean guaranteed = true;
        for (JsonNode c : spec.path("containers")) {
            JsonNode requests = c.path("resources").path("requests");
            JsonNode limits = c.path("resources").path("limits");
            any |= !requests.isEmpty() || !limits.isEmpty();
            for (String resource : new String[] {"cpu", "memory"}) {
                JsonNode limit = limits.path(resource);
                JsonNode request = requests.path(resource);
                guaranteed &= !limit.isMissingNode() && (request.isMissingNode() || request.equals(limit));
            }
        }
        return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
    }

    private static ObjectNode child(ObjectNode parent, String name) {
        JsonNode node = parent.get(name);
        if (node instanceof ObjectNode o) {
            return o;
        }
        return parent.putObject(name);
    }

    private static void putIfAbsent(ObjectNode node, String field, String value) {
        if (!node.hasNonNull(field)) {
            node.put(field, value);
        }
    }

    private static void putIfAbsent(ObjectNode node, String field, int value) {
        if (!node.hasNonNull(field)) {
            node.put(field, value);
        }
    }

    private static void putIfAbsent(ObjectNode node, String field, boolean value) {
        if (!node.hasNonNull(field)) {
            node.put(field, value);
        }
    }
}
