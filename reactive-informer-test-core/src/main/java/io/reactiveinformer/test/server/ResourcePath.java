package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.Arrays;
import java.util.List;

/**
 * Where a resource path points, as the real server's request info resolver reads
 * {@code /api/v1/...} and {@code /apis/<group>/<version>/...}.
 *
 * @param type        the registered resource
 * @param namespace   the namespace, or {@code null} for a cluster-scoped resource or all namespaces
 * @param name        the object's name, or {@code null} for the collection
 * @param subresource {@code status}, or {@code null}
 */
record ResourcePath(ResourceType<?> type, String namespace, String name, String subresource) {

    /** The target of {@code path} among the resources {@code state} serves; 404 for anything else. */
    static ResourcePath parse(String path, ClusterState state) {
        String[] all = path.split("/");
        List<String> seg = Arrays.asList(all).subList(1, all.length);
        String group;
        String version;
        List<String> rest;
        if (seg.size() >= 3 && seg.get(0).equals("api")) {
            group = "";
            version = seg.get(1);
            rest = seg.subList(2, seg.size());
        } else if (seg.size() >= 4 && seg.get(0).equals("apis")) {
            group = seg.get(1);
            version = seg.get(2);
            rest = seg.subList(3, seg.size());
        } else {
            throw ApiError.pathNotFound();
        }
        String namespace = null;
        if (rest.size() >= 3 && rest.get(0).equals("namespaces")) {
            ResourceType<?> inner = state.resource(group, version, rest.get(2)).orElse(null);
            if (inner != null && inner.namespaced()) {
                namespace = rest.get(1);
                rest = rest.subList(2, rest.size());
            }
        }
        if (rest.isEmpty() || rest.size() > 3) {
            throw ApiError.pathNotFound();
        }
        ResourceType<?> type = state.resource(group, version, rest.get(0)).orElseThrow(ApiError::pathNotFound);
        String sub = rest.size() == 3 ? rest.get(2) : null;
        if (sub != null && !sub.equals("status")) {
            throw ApiError.pathNotFound();
        }
        return new ResourcePath(type, namespace, rest.size() >= 2 ? rest.get(1) : null, sub);
    }
}
