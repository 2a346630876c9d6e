package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The unaggregated discovery documents ({@code /api}, {@code /apis}, {@code /api/v1},
 * {@code /apis/<group>/<version>}), {@code /version} and a minimal OpenAPI v3 index, built from the
 * registered resources. Clients asking for aggregated discovery get these too: they tell by the
 * response's plain {@code application/json} and fall back, as they do with older servers.
 */
final class Discovery {

    /** The kube-apiserver release whose behaviour the simulated server follows. */
    static final String MAJOR = "1";
    static final String MINOR = "36";

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> VERBS = List.of("create", "delete", "deletecollection", "get", "list", "patch",
            "update", "watch");
    /** The short names kube-apiserver's discovery gives its own resources. */
    private static final Map<String, List<String>> SHORT_NAMES = Map.ofEntries(
            Map.entry("/namespaces", List.of("ns")), Map.entry("/nodes", List.of("no")),
            Map.entry("/pods", List.of("po")), Map.entry("/configmaps", List.of("cm")),
            Map.entry("/services", List.of("svc")), Map.entry("/events", List.of("ev")),
            Map.entry("/serviceaccounts", List.of("sa")), Map.entry("/persistentvolumeclaims", List.of("pvc")),
            Map.entry("/persistentvolumes", List.of("pv")), Map.entry("/endpoints", List.of("ep")),
            Map.entry("apps/deployments", List.of("deploy")), Map.entry("apps/replicasets", List.of("rs")),
            Map.entry("apps/daemonsets", List.of("ds")), Map.entry("apps/statefulsets", List.of("sts")),
            Map.entry("batch/cronjobs", List.of("cj")), Map.entry("networking.k8s.io/ingresses", List.of("ing")),
            Map.entry("events.k8s.io/events", List.of("ev")));

    private Discovery() {
    }

    static ObjectNode version() {
        ObjectNode v = NODES.objectNode();
        v.put("major", MAJOR);
        v.put("minor", MINOR);
        v.put("emulationMajor", MAJOR);
        v.put("emulationMinor", MINOR);
        v.put("minCompatibilityMajor", MAJOR);
        v.put("minCompatibilityMinor", Integer.toString(Integer.parseInt(MINOR) - 1));
        v.put("gitVersion", "v" + MAJOR + "." + MINOR + ".0+reactive-informer-simulated");
        v.put("gitCommit", "");
        v.put("gitTreeState", "clean");
        v.put("buildDate", "1970-01-01T00:00:00Z");
        v.put("goVersion", "");
        v.put("compiler", "");
        v.put("platform", "linux/amd64");
        return v;
    }

    /** {@code /api}: the core group's versions. */
    static ObjectNode coreVersions(List<ResourceType<?>> resources, String serverAddress) {
        ObjectNode doc = NODES.objectNode();
        doc.put("kind", "APIVersions");
        ArrayNode versions = doc.putArray("versions");
        groups(resources).getOrDefault("", List.of()).forEach(versions::add);
        ObjectNode address = doc.putArray("serverAddressByClientCIDRs").addObject();
        address.put("clientCIDR", "0.0.0.0/0");
        address.put("serverAddress", serverAddress);
        return doc;
    }

    /** {@code /apis}: every named group and its versions (the first registered is the preferred one). */
    static ObjectNode groupList(List<ResourceType<?>> resources) {
        ObjectNode doc = NODES.objectNode();
        doc.put("kind", "APIGroupList");
        doc.put("apiVersion", "v1");
        ArrayNode groups = doc.putArray("groups");
        groups(resources).forEach((group, versions) -> {
            if (!group.isEmpty()) {
                groups.add(group(group, versions));
            }
        });
        return doc;
    }

    /** {@code /apis/<group>}, or empty when no resource is in it. */
    static ObjectNode group(List<ResourceType<?>> resources, String group) {
        List<String> versions = groups(resources).get(group);
        if (versions == null) {
            return null;
        }
        ObjectNode doc = NODES.objectNode();
        doc.put("kind", "APIGroup");
        doc.put("apiVersion", "v1");
        doc.setAll(group(group, versions));
        return doc;
    }

    /** {@code /api/v1} or {@code /apis/<group>/<version>}, or {@code null} when nothing is served there. */
    static ObjectNode resourceList(List<ResourceType<?>> resources, String group, String version,
                                   Predicate<ResourceType<?>> hasStatus) {
        ObjectNode doc = NODES.objectNode();
        doc.put("kind", "APIResourceList");
        doc.put("apiVersion", "v1");
        doc.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        ArrayNode list = doc.putArray("resources");
        boolean any = false;
        for (ResourceType<?> type : resources) {
            if (!type.group().equals(group) || !type.version().equals(version)) {
                continue;
            }
            any = true;
            ObjectNode r = list.addObject();
            r.put("name", type.plural());
            r.put("singularName", type.kind().toLowerCase(Locale.ROOT));
            r.put("namespaced", type.namespaced());
            r.put("kind", type.kind());
            ArrayNode verbs = r.putArray("verbs");
            VERBS.stream().filter(verb -> !verb.equals("deletecollection") || ResourceTraits.allowsDeleteCollection(type))
                    .forEach(verbs::add);
            List<String> shortNames = ResourceTraits.isBuiltIn(type)
                    ? SHORT_NAMES.get(type.group() + "/" + type.plural()) : null;
            if (shortNames != null) {
                ArrayNode names = r.putArray("shortNames");
                shortNames.forEach(names::add);
            }
            if (hasStatus.test(type)) {
                ObjectNode status = list.addObject();
                status.put("name", type.plural() + "/status");
                status.put("singularName", "");
                status.put("namespaced", type.namespaced());
                status.put("kind", type.kind());
                ArrayNode statusVerbs = status.putArray("verbs");
                List.of("get", "patch", "update").forEach(statusVerbs::add);
            }
        }
        return any ? doc : null;
    }

    /**
     * {@code /openapi/v3}: the index of group-versions, with the hash of each document that is served
     * ({@link OpenApiDocuments}); the others answer 404.
     */
    static ObjectNode openApiIndex(List<ResourceType<?>> resources) {
        ObjectNode doc = NODES.objectNode();
        ObjectNode paths = doc.putObject("paths");
        groups(resources).forEach((group, versions) -> {
            for (String version : versions) {
                String path = group.isEmpty() ? "api/" + version : "apis/" + group + "/" + version;
                paths.putObject(path).put("serverRelativeURL", "/openapi/v3/" + path
                        + OpenApiDocuments.of(path).map(d -> "?hash=" + d.hash()).orElse(""));
            }
        });
        return doc;
    }

    private static ObjectNode group(String name, List<String> versions) {
        ObjectNode g = NODES.objectNode();
        g.put("name", name);
        ArrayNode list = g.putArray("versions");
        for (String version : versions) {
            ObjectNode v = list.addObject();
            v.put("groupVersion", name + "/" + version);
            v.put("version", version);
        }
        ObjectNode preferred = g.putObject("preferredVersion");
        preferred.put("groupVersion", name + "/" + versions.get(0));
        preferred.put("version", versions.get(0));
        return g;
    }

    /** Group name to its versions, in registration order. */
    private static Map<String, List<String>> groups(List<ResourceType<?>> resources) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (ResourceType<?> type : resources) {
            List<String> versions = out.computeIfAbsent(type.group(), g -> new ArrayList<>());
            if (!versions.contains(type.version())) {
                versions.add(type.version());
            }
        }
        return out;
    }
}
