package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.reactiveinformer.api.DeleteOptions;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The state of a simulated cluster, shared by its two fronts (the HTTP {@link SimulatedApiServer} and
 * the test kit's in-memory ListerWatcher): objects of every registered resource, one global
 * monotonically increasing resourceVersion, a bounded history of changes per resource, and watchers
 * reading it.
 *
 * <p>Like etcd and the watch cache behind kube-apiserver: every mutation takes the next
 * resourceVersion and appends one change to its resource's history; each resource's history keeps
 * its last {@code historyLimit} changes (so churn in one resource never expires another's watches),
 * {@link #compact()} drops them all, and a watch or a continue token or an exact LIST older than what
 * its resource keeps answers 410 Expired. LIST can be served at any retained version (the history is
 * replayed backwards), which is what makes continue tokens consistent.
 *
 * <p>The parts: {@link ResourceRegistry} (what is served), {@link ObjectSemantics} (what a write
 * makes of an object), {@link History} (per resource), {@link ListPaginator} (LIST) and
 * {@link WatchHub} (WATCH); this class holds the lock, the resourceVersion and the typed helpers.
 *
 * <p>Objects are stored as JSON trees, so any kind (official model, CRD POJO, {@link DynamicObject})
 * is handled alike; trees handed out are shared and must not be mutated. The typed methods
 * ({@link #create(Object)}, {@link #list(ResourceType)}, ...) convert through {@link KubernetesJson}.
 *
 * <p>Threading: thread-safe; mutations hold one lock for microseconds and never block. Watchers are
 * fed on the thread that mutates (or that requests more), never buffered beyond the history.
 * Timestamps read the scheduler's clock; watch timeouts and periodic bookmarks run on it.
 */
public final class ClusterState {

    /** The annotation of the bookmark that ends a streaming list's initial events. */
    public static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

    private final KubernetesJson json;
    private final Scheduler scheduler;
    private final ResourceRegistry registry;
    private final ObjectSemantics semantics;
    private final WatchHub hub;
    private final boolean requireNamespaces;
    private long resourceVersion = 1;
    /** Changes of every resource up to this version are gone (the last {@link #compact()}). */
    private long compactedTo = 1;

    private ClusterState(Builder b) {
        this.json = b.json;
        this.scheduler = b.scheduler;
        this.registry = new ResourceRegistry(b.historyLimit);
        this.semantics = new ObjectSemantics(new SplittableRandom(b.seed), b.scheduler);
        this.hub = new WatchHub(this, b.scheduler, b.bookmarkInterval);
        this.requireNamespaces = b.requireNamespaces;
        for (Map.Entry<ResourceType<?>, Boolean> e : b.resources.entrySet()) {
            register(e.getKey(), e.getValue());
        }
    }

    /** A state with the default resources, history of 1000 changes, seed 0, on {@code Schedulers.parallel()}. */
    public static ClusterState create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Configures a {@link ClusterState}. Not thread-safe. */
    public static final class Builder {
        private final Map<ResourceType<?>, Boolean> resources = new LinkedHashMap<>();
        private KubernetesJson json = KubernetesJson.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private int historyLimit = 1000;
        private Duration bookmarkInterval = Duration.ofMinutes(1);
        private long seed;
        private boolean requireNamespaces;

        private Builder() {
            for (Class<?> model : List.of(V1Namespace.class, V1Node.class, V1Pod.class, V1ConfigMap.class,
                    V1Secret.class, V1Service.class, V1Deployment.class, V1Lease.class)) {
                resources.put(ResourceType.of(model), model != V1ConfigMap.class && model != V1Secret.class
                        && model != V1Lease.class);
            }
            resources.put(ResourceType.namespaced("", "v1", "events", "Event", CoreV1Event.class), false);
        }

        /** Adds a resource with a {@code status} subresource (as CRDs declaring one, and most built-in kinds). */
        public Builder resource(ResourceType<?> type) {
            return resource(type, true);
        }

        public Builder resource(ResourceType<?> type, boolean statusSubresource) {
            resources.put(type, statusSubresource);
            return this;
        }

        /** How many changes each resource's history keeps (its compaction window); default 1000. */
        public Builder historyLimit(int historyLimit) {
            if (historyLimit < 1) {
                throw new IllegalArgumentException("historyLimit must be positive");
            }
            this.historyLimit = historyLimit;
            return this;
        }

        /** How often watchers that allow bookmarks get one; default 1 minute, as the real server. */
        public Builder bookmarkInterval(Duration bookmarkInterval) {
            this.bookmarkInterval = Objects.requireNonNull(bookmarkInterval, "bookmarkInterval");
            return this;
        }

        /** The clock of timestamps and the timers of watches (timeouts, bookmarks). */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Makes creating an object in a Namespace that does not exist fail with 404, as the real
         * server does. Off by default, so tests may use namespaces they never created; creating in a
         * terminating namespace is refused (403) either way.
         */
        public Builder requireNamespaces() {
            this.requireNamespaces = true;
            return this;
        }

        /** Seeds uids and generated names. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder json(KubernetesJson json) {
            this.json = Objects.requireNonNull(json, "json");
            return this;
        }

        public ClusterState build() {
            return new ClusterState(this);
        }
    }

    public KubernetesJson json() {
        return json;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /** Registers another resource (with a status subresource) while running. */
    public ClusterState register(ResourceType<?> type) {
        return register(type, true);
    }

    public synchronized ClusterState register(ResourceType<?> type, boolean statusSubresource) {
        registry.register(type, statusSubresource, compactedTo);
        json.prepare(type.type());
        return this;
    }

    /** The registered resource at {@code group/version/plural}, as a URL names it. */
    public synchronized Optional<ResourceType<?>> resource(String group, String version, String plural) {
        return registry.find(group, version, plural).map(kind -> kind.type);
    }

    /** Every registered resource, in registration order. */
    public synchronized List<ResourceType<?>> resources() {
        return registry.all().stream().<ResourceType<?>>map(kind -> kind.type).toList();
    }

    /** Whether the resource has a {@code status} subresource. */
    synchronized boolean hasStatusSubresource(ResourceType<?> type) {
        return registry.kind(type).statusSubresource;
    }

    /** The current (latest) resourceVersion. */
    public synchronized long resourceVersion() {
        return resourceVersion;
    }

    /** The oldest resourceVersion a watch of {@code type} may still start from. */
    public synchronized long oldestResourceVersion(ResourceType<?> type) {
        return registry.kind(type).history.compactedTo();
    }

    /** Drops the whole history, like an etcd compaction at the current revision. */
    public void compact() {
        synchronized (this) {
            compactedTo = resourceVersion;
            for (Kind kind : registry.all()) {
                kind.history.compact(resourceVersion);
            }
        }
        hub.signal();
    }

    /** Makes every watcher that allows bookmarks send one at its current version. */
    public void bookmark() {
        hub.bookmark();
    }

    /** How many watch streams are open. */
    public int watcherCount() {
        return hub.count();
    }

    // ---------------------------------------------------------------- typed helpers for tests

    /** Creates {@code object} (an official model, a CRD POJO or a {@link DynamicObject}) and returns it as stored. */
    @SuppressWarnings("unchecked")
    public <T> T create(T object) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        return (T) fromTree(create(type, tree.path("metadata").path("namespace").asString(null), tree),
                object.getClass());
    }

    /** Replaces {@code object}; a set resourceVersion must be current (else {@link ApiError} 409). */
    public <T> T update(T object) {
        return replaceTyped(object, false);
    }

    /** Replaces the status of {@code object}. */
    public <T> T updateStatus(T object) {
        return replaceTyped(object, true);
    }

    @SuppressWarnings("unchecked")
    private <T> T replaceTyped(T object, boolean statusOnly) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        return (T) fromTree(replace(type, meta.path("namespace").asString(null), meta.path("name").asString(null),
                tree, statusOnly), object.getClass());
    }

    /** Deletes {@code object} (by its namespace and name). */
    public void delete(Object object) {
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        delete(typeOf(object), meta.path("namespace").asString(null), meta.path("name").asString(null));
    }

    /** The object, or empty. */
    public <T> Optional<T> find(ResourceType<T> type, String namespace, String name) {
        ObjectNode tree;
        synchronized (this) {
            tree = registry.kind(type).objects.get(Kind.key(type.namespaced() ? namespace : null, name));
        }
        return Optional.ofNullable(tree).map(t -> fromTree(t, type.type()));
    }

    /** Every object of {@code type}, in key order. */
    public <T> List<T> list(ResourceType<T> type) {
        List<ObjectNode> trees;
        synchronized (this) {
            trees = new ArrayList<>(registry.kind(type).objects.values());
        }
        List<T> out = new ArrayList<>(trees.size());
        for (ObjectNode tree : trees) {
            out.add(fromTree(tree, type.type()));
        }
        return out;
    }

    /** Every object of an official model class. */
    public <T> List<T> list(Class<T> model) {
        return list(registeredType(model));
    }

    /** The tree of a typed object. */
    public ObjectNode toTree(Object object) {
        JsonNode tree = json.mapper().valueToTree(object);
        if (!tree.isObject()) {
            throw new IllegalArgumentException("not an object: " + object);
        }
        return (ObjectNode) tree;
    }

    /** A typed copy of a stored tree. */
    public <T> T fromTree(JsonNode tree, Class<T> type) {
        return json.mapper().treeToValue(tree, type);
    }

    /** The registered resource for a model class or a POJO registered with its class. */
    public synchronized <T> ResourceType<T> registeredType(Class<T> model) {
        return registry.byModel(model).orElseGet(() -> {
            ResourceType<T> type = ResourceType.of(model);
            register(type);
            return type;
        });
    }

    private ResourceType<?> typeOf(Object object) {
        if (object instanceof DynamicObject dynamic) {
            synchronized (this) {
                return registry.byApiVersionAndKind(dynamic);
            }
        }
        return registeredType(object.getClass());
    }

    // ---------------------------------------------------------------- the API, on trees

    /** POST: creates {@code body} in {@code namespace} (or the body's own). */
    public ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body) {
        return create(type, namespace, body, false);
    }

    ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body, boolean dryRun) {
        ObjectNode created;
        synchronized (this) {
            created = write(createMutation(registry.kind(type), namespace, body), dryRun);
        }
        hub.signal();
        return created;
    }

    private Mutation createMutation(Kind kind, String namespace, ObjectNode body) {
        Kind namespaces = registry.find("", "v1", "namespaces").orElse(null);
        return semantics.create(kind, namespace, body, namespaces, requireNamespaces);
    }

    /** PUT: replaces the object (or only its status); {@code body.metadata.resourceVersion}, if set, must be current. */
    public ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body,
                              boolean statusOnly) {
        return replace(type, namespace, name, body, statusOnly, false);
    }

    ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body, boolean statusOnly,
                       boolean dryRun) {
        ObjectNode result;
        synchronized (this) {
            Kind kind = registry.kind(type);
            Validation.checkKind(type, body);
            ObjectNode meta = ObjectSemantics.metadata(body);
            String ns = ObjectSemantics.namespaceFor(type, namespace, meta);
            if (name == null || (meta.has("name") && !name.equals(meta.path("name").asString()))) {
                throw ApiError.badRequest("the name of the object (" + meta.path("name").asString("")
                        + ") does not match the name on the URL (" + name + ")");
            }
            result = write(semantics.replace(kind, Kind.key(ns, name), name, body, statusOnly), dryRun);
        }
        hub.signal();
        return result;
    }

    /** PATCH: applies a patch to the object (or to its status); APPLY creates a missing object. */
    public ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                           boolean statusOnly) {
        return patch(type, namespace, name, patchType, patch, statusOnly, false, null);
    }

    /**
     * PATCH. An apply by {@code fieldManager} also removes the fields that manager applied last time,
     * no longer applies, and nobody changed since.
     */
    ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                     boolean statusOnly, boolean dryRun, String fieldManager) {
        ObjectNode result;
        synchronized (this) {
            Kind kind = registry.kind(type);
            String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
            String key = Kind.key(ns, name);
            if (!kind.objects.containsKey(key) && patchType == PatchType.APPLY && !statusOnly) {
                if (!patch.isObject()) {
                    throw ApiError.badRequest("an apply patch must be an object");
                }
                ObjectNode body = (ObjectNode) patch.deepCopy();
                ObjectSemantics.metadata(body).put("name", name);
                result = write(createMutation(kind, ns, body), dryRun);
            } else if (patchType == PatchType.APPLY && !statusOnly && fieldManager != null) {
                JsonNode previous = kind.applied.getOrDefault(key, Map.of()).get(fieldManager);
                result = write(semantics.apply(kind, key, name, LastAppliedAnnotation.syncedWith(kind.objects.get(key), patch,
                        fieldManager, json.mapper()), previous), dryRun);
            } else {
                result = write(semantics.patch(kind, key, name, patchType, patch, statusOnly), dryRun);
            }
            if (patchType == PatchType.APPLY && !statusOnly && fieldManager != null && !dryRun) {
                kind.applied.computeIfAbsent(key, k -> new HashMap<>()).put(fieldManager, patch.deepCopy());
            }
        }
        hub.signal();
        return result;
    }

    /**
     * DELETE: removes the object, or, while it has finalizers, marks it with a deletionTimestamp (it
     * goes once an update empties its finalizers). Returns the object as deleted (or marked).
     */
    public ObjectNode delete(ResourceType<?> type, String namespace, String name) {
        return delete(type, namespace, name, DeleteOptions.none(), false).object();
    }

    /** DELETE with options (preconditions, propagation policy, grace period), or its dry run. */
    Deletion delete(ResourceType<?> type, String namespace, String name, DeleteOptions options, boolean dryRun) {
        Deletion result;
        synchronized (this) {
            result = deleteLocked(registry.kind(type), namespace, name, options, dryRun);
        }
        hub.signal();
        return result;
    }

    /** DELETE of a collection: every object matching the selectors, as one DELETE each would. */
    List<Deletion> deleteCollection(ResourceType<?> type, String namespace, ListOptions selectors,
                                    DeleteOptions options, boolean dryRun) {
        List<Deletion> out = new ArrayList<>();
        synchronized (this) {
            Kind kind = registry.kind(type);
            String ns = type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
            Selector labels = Selector.labels(selectors.labelSelector());
            Selector fields = Selector.fields(type, selectors.fieldSelector());
            for (String key : ObjectSemantics.keysMatching(kind, ns, labels, fields)) {
                ObjectNode obj = kind.objects.get(key);
                String name = obj.path("metadata").path("name").asString();
                String objNs = obj.path("metadata").path("namespace").asString(null);
                out.add(deleteLocked(kind, objNs, name, options, dryRun));
            }
        }
        hub.signal();
        return out;
    }

    private Deletion deleteLocked(Kind kind, String namespace, String name, DeleteOptions options, boolean dryRun) {
        ResourceType<?> type = kind.type;
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        String key = Kind.key(ns, name);
        Deletion deletion = semantics.delete(kind, key, name, options);
        ObjectNode previous = kind.objects.get(key);
        if (deletion.removed()) {
            Mutation m = new Mutation(kind, EventType.DELETED, key, previous.deepCopy(), previous);
            return new Deletion(write(m, dryRun), true, previous);
        }
        if (deletion.object() == previous) {
            return deletion;
        }
        return new Deletion(write(new Mutation(kind, EventType.MODIFIED, key, deletion.object(), previous), dryRun),
                false, previous);
    }

    /** GET. */
    public synchronized ObjectNode get(ResourceType<?> type, String namespace, String name) {
        Kind kind = registry.kind(type);
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        ObjectNode obj = kind.objects.get(Kind.key(ns, name));
        if (obj == null) {
            throw ApiError.notFound(type, name);
        }
        return obj;
    }

    /** LIST of one page; see {@link ListPaginator#page} for the versions a request reads. */
    public synchronized ListResult list(ResourceType<?> type, String namespace, ListOptions options) {
        return ListPaginator.page(registry.kind(type), resourceVersion, namespace, options);
    }

    /**
     * WATCH. Request errors (unknown selector field, bad version) throw {@link ApiError} here; a
     * version older than the resource's history becomes an {@code ERROR} 410 event in the stream, as
     * the real server sends it. With no (or {@code "0"}) resourceVersion, or with
     * {@code sendInitialEvents}, the stream starts with the current objects as {@code ADDED} events;
     * with {@code sendInitialEvents} a bookmark annotated {@value #INITIAL_EVENTS_END} follows them.
     * The stream completes after {@code timeoutSeconds} on the scheduler.
     */
    public Flux<StreamEvent> watch(ResourceType<?> type, String namespace, WatchOptions options) {
        Kind kind;
        synchronized (this) {
            kind = registry.kind(type);
        }
        return hub.watch(kind, namespace, options);
    }

    // ---------------------------------------------------------------- for the watch hub and watchers

    /** The current version; the caller holds the lock. */
    long currentVersion() {
        return resourceVersion;
    }

    void forget(Watcher watcher) {
        hub.forget(watcher);
    }

    StreamEvent expiry(Watcher watcher) {
        return hub.expiry(watcher);
    }

    List<StreamEvent> collect(Watcher watcher, long demand) {
        return hub.collect(watcher, demand);
    }

    // ---------------------------------------------------------------- internals

    /**
     * Commits a mutation: takes the next resourceVersion, stores the object and appends the change
     * to its resource's history. A dry run commits nothing and answers what would have been stored
     * (a created object has no resourceVersion yet). Holds the lock.
     */
    private ObjectNode write(Mutation m, boolean dryRun) {
        if (!m.changes()) {
            return m.object();
        }
        if (dryRun) {
            if (m.type() == EventType.ADDED) {
                ObjectSemantics.metadata(m.object()).remove("resourceVersion");
            }
            return m.object();
        }
        long rv = ++resourceVersion;
        ObjectNode object = m.object();
        ObjectSemantics.metadata(object).put("resourceVersion", Long.toString(rv));
        if (m.type() == EventType.DELETED) {
            m.kind().objects.remove(m.key());
            m.kind().applied.remove(m.key());
        } else {
            m.kind().objects.put(m.key(), object);
        }
        m.kind().history.append(new Change(rv, m.type(), m.key(), object, m.previous()));
        return object;
    }

    /** The {@code Status} of an error, as a tree. */
    public ObjectNode statusTree(ApiError error) {
        return json.mapper().valueToTree(error.toStatus());
    }

    /** For diagnostics: the kinds and how many objects each holds. */
    @Override
    public synchronized String toString() {
        StringBuilder b = new StringBuilder("ClusterState[rv=").append(resourceVersion).append(", compacted=")
                .append(compactedTo);
        for (Kind kind : registry.all()) {
            if (!kind.objects.isEmpty()) {
                b.append(", ").append(kind.type.plural()).append('=').append(kind.objects.size());
            }
        }
        return b.append(']').toString();
    }

    /** Every stored object of {@code type}, as trees (shared, read-only). */
    public synchronized Collection<ObjectNode> trees(ResourceType<?> type) {
        return List.copyOf(registry.kind(type).objects.values());
    }
}
