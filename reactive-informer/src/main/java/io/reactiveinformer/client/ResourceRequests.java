package io.reactiveinformer.client;

import io.netty.handler.codec.http.QueryStringEncoder;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The requests of one {@link ResourceClient} handle, as the API server's REST layout spells them: the paths
 * of its resource (group, version, plural, namespace, name, subresource), the query parameters of lists,
 * watches, patches and writes (selectors combined with the handle's, {@code dryRun}) and the body of a
 * DELETE. Immutable and pure: which namespace a call addresses, the HTTP exchange and the decoding stay
 * in {@link ResourceClient}. Names and namespaces are checked as path segments here.
 */
final class ResourceRequests {

    private final ResourceType<?> type;
    private final String labelSelector;
    private final String fieldSelector;
    /** Writes are sent with {@code dryRun=All}. */
    private final boolean dryRun;

    ResourceRequests(ResourceType<?> type, String labelSelector, String fieldSelector, boolean dryRun) {
        this.type = type;
        this.labelSelector = labelSelector;
        this.fieldSelector = fieldSelector;
        this.dryRun = dryRun;
    }

    /** A LIST in {@code namespace} ({@code null}: all of them). */
    String list(String namespace, ListOptions options) {
        QueryStringEncoder query = new QueryStringEncoder(collectionPath(namespace));
        addSelectors(query, options.labelSelector(), options.fieldSelector());
        if (options.limit() != null && options.limit() > 0) {
            query.addParam("limit", options.limit().toString());
        }
        addIfPresent(query, "continue", options.continueToken());
        if (options.resourceVersion() != null) {
            query.addParam("resourceVersion", options.resourceVersion());
        }
        addIfPresent(query, "resourceVersionMatch", options.resourceVersionMatch());
        addShardSelector(query, options.shardSelector());
        return query.toString();
    }

    /** A watch in {@code namespace} ({@code null}: all of them); an empty resourceVersion is left out. */
    String watch(String namespace, WatchOptions options) {
        QueryStringEncoder query = new QueryStringEncoder(collectionPath(namespace));
        query.addParam("watch", "true");
        addSelectors(query, options.labelSelector(), options.fieldSelector());
        if (options.resourceVersion() != null && !options.resourceVersion().isEmpty()) {
            query.addParam("resourceVersion", options.resourceVersion());
        }
        addIfPresent(query, "resourceVersionMatch", options.resourceVersionMatch());
        if (options.allowBookmarks()) {
            query.addParam("allowWatchBookmarks", "true");
        }
        if (options.sendInitialEvents()) {
            query.addParam("sendInitialEvents", "true");
        }
        if (options.timeoutSeconds() != null) {
            query.addParam("timeoutSeconds", options.timeoutSeconds().toString());
        }
        addShardSelector(query, options.shardSelector());
        return query.toString();
    }

    /** The object {@code name} (a GET or a DELETE). */
    String object(String namespace, String name) {
        return objectPath(namespace, name, null);
    }

    /** A POST of a new object. */
    String create(String namespace) {
        return write(collectionPath(namespace));
    }

    /** A PUT of the object {@code name}, or of its {@code subresource} when not {@code null}. */
    String replace(String namespace, String name, String subresource) {
        return write(objectPath(namespace, name, subresource));
    }

    /** A PATCH of the object {@code name}, or of its {@code subresource}; {@code fieldManager} for an apply. */
    String patch(String namespace, String name, String subresource, String fieldManager, boolean force) {
        QueryStringEncoder query = new QueryStringEncoder(objectPath(namespace, name, subresource));
        if (fieldManager != null) {
            query.addParam("fieldManager", fieldManager);
        }
        if (force) {
            query.addParam("force", "true");
        }
        if (dryRun) {
            query.addParam("dryRun", "All");
        }
        return query.toString();
    }

    /** A DELETE of the handle's selected objects in {@code namespace}. */
    String deleteCollection(String namespace) {
        QueryStringEncoder query = new QueryStringEncoder(collectionPath(namespace));
        addSelectors(query, null, null);
        return query.toString();
    }

    /** With a body, the server ignores a DELETE's query parameters: everything, dryRun included, goes in the body. */
    Map<String, Object> deleteOptions(DeleteOptions options) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", "DeleteOptions");
        body.put("apiVersion", "v1");
        if (options.uid() != null || options.resourceVersion() != null) {
            Map<String, String> preconditions = new LinkedHashMap<>();
            if (options.uid() != null) {
                preconditions.put("uid", options.uid());
            }
            if (options.resourceVersion() != null) {
                preconditions.put("resourceVersion", options.resourceVersion());
            }
            body.put("preconditions", preconditions);
        }
        if (options.propagationPolicy() != null) {
            body.put("propagationPolicy", options.propagationPolicy().wireName());
        }
        if (options.gracePeriodSeconds() != null) {
            body.put("gracePeriodSeconds", options.gracePeriodSeconds());
        }
        if (dryRun) {
            body.put("dryRun", List.of("All"));
        }
        return body;
    }

    /** {@code path} with {@code dryRun=All} when this handle's writes are dry runs. */
    private String write(String path) {
        if (!dryRun) {
            return path;
        }
        return path + (path.contains("?") ? "&" : "?") + "dryRun=All";
    }

    private String collectionPath(String namespace) {
        // the URL layout is the client's business, not the resource type's
        String base = type.group().isEmpty()
                ? "/api/" + type.version()
                : "/apis/" + type.group() + "/" + type.version();
        return namespace == null ? base + "/" + type.plural()
                : base + "/namespaces/" + segment(namespace) + "/" + type.plural();
    }

    private String objectPath(String namespace, String name, String subresource) {
        String path = collectionPath(namespace) + "/" + segment(Objects.requireNonNull(name, "name"));
        return subresource == null ? path : path + "/" + subresource;
    }

    private void addSelectors(QueryStringEncoder query, String label, String field) {
        addIfPresent(query, "labelSelector", and(labelSelector, label));
        addIfPresent(query, "fieldSelector", and(fieldSelector, field));
    }

    private static void addShardSelector(QueryStringEncoder query, ShardSelector selector) {
        if (selector != null) {
            query.addParam("shardSelector", selector.toString());
        }
    }

    private static String and(String a, String b) {
        boolean hasA = a != null && !a.isEmpty();
        boolean hasB = b != null && !b.isEmpty();
        return hasA && hasB ? a + "," + b : hasA ? a : hasB ? b : null;
    }

    private static void addIfPresent(QueryStringEncoder query, String name, String value) {
        if (value != null && !value.isEmpty()) {
            query.addParam(name, value);
        }
    }

    /** Names and namespaces are DNS labels/subdomains; anything else would be a caller bug, so refuse it. */
    private static String segment(String value) {
        if (value.isEmpty() || value.contains("/") || value.contains("?") || value.contains("%") || value.contains("#")) {
            throw new IllegalArgumentException("not a valid name or namespace: \"" + value + "\"");
        }
        return value;
    }
}
