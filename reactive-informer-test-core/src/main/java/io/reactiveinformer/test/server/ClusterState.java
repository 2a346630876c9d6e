package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The state of a simulated cluster, shared by its two fronts (the HTTP {@link SimulatedApiServer} and
 * the test kit's in-memory ListerWatcher): objects of every registered resource, one global
 * monotonically increasing resourceVersion, a bounded history of changes, and watchers reading it.
 *
 * <p>Like etcd behind kube-apiserver: every mutation takes the next resourceVersion and appends one
 * change to the history; the history keeps the last {@code historyLimit} changes (and
 * {@link #compact()} drops them all), and a watch or a continue token or an exact LIST older than
 * what is kept answers 410 Expired. LIST can be served at any retained version (the history is
 * replayed backwards), which is what makes continue tokens consistent.
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

    private static final String NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

    private final KubernetesJson json;
    private final Scheduler scheduler;
    private final int historyLimit;
    private final Duration bookmarkInterval;
    private final SplittableRandom random;
    private final Map<String, Kind> kinds = new LinkedHashMap<>();
    private final Change[] history;
    private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
    private long resourceVersion = 1;
    /** Changes up to this version are gone. */
    private long compactedTo = 1;

    private ClusterState(Builder b) {
        this.json = b.json;
        this.scheduler = b.scheduler;
        this.historyLimit = b.historyLimit;
        this.bookmarkInterval = b.bookmarkInterval;
        this.random = new SplittableRandom(b.seed);
        this.history = new Change[b.historyLimit];
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

        private Builder() {
            for (Class<?> model : List.of(V1Namespace.class, V1Node.class, V1Pod.class, V1ConfigMap.class,
                    V1Secret.class, V1Service.class, V1Deployment.class, V1Lease.class)) {
                resources.put(ResourceType.of(model), model != V1ConfigMap.class && model != V1Secret.class
                        && model != V1Lease.class);
            }
        }

        /** Adds a resource with a {@code status} subresource (as CRDs declaring one, and most built-in kinds). */
        public Builder resource(ResourceType<?> type) {
            return resource(type, true);
        }

        public Builder resource(ResourceType<?> type, boolean statusSubresource) {
            resources.put(type, statusSubresource);
            return this;
        }

        /** How many changes the history keeps (the compaction window); default 1000. */
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
        kinds.putIfAbsent(Kind.id(type.group(), type.version(), type.plural()), new Kind(type, statusSubresource));
        json.prepare(type.type());
        return this;
    }

    /** The registered resource at {@code group/version/plural}, as a URL names it. */
    public synchronized Optional<ResourceType<?>> resource(String group, String version, String plural) {
        Kind kind = kinds.get(Kind.id(group, version, plural));
        return kind == null ? Optional.empty() : Optional.of(kind.type);
    }

    /** The current (latest) resourceVersion. */
    public synchronized long resourceVersion() {
        return resourceVersion;
    }

    /** The oldest resourceVersion a watch may still start from. */
    public synchronized long oldestResourceVersion() {
        return compactedTo;
    }

    /** Drops the whole history, like an etcd compaction at the current revision. */
    public void compact() {
        synchronized (this) {
            compactedTo = resourceVersion;
        }
        signal();
    }

    /** Makes every watcher that allows bookmarks send one at its current version. */
    public void bookmark() {
        for (Watcher w : watchers) {
            w.requestBookmark();
        }
    }

    /** How many watch streams are open. */
    public int watcherCount() {
        return watchers.size();
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
    @SuppressWarnings("unchecked")
    public <T> T update(T object) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        return (T) fromTree(replace(type, meta.path("namespace").asString(null), meta.path("name").asString(null),
                tree, false), object.getClass());
    }

    /** Replaces the status of {@code object}. */
    @SuppressWarnings("unchecked")
    public <T> T updateStatus(T object) {
        ResourceType<?> type = typeOf(object);
        ObjectNode tree = toTree(object);
        JsonNode meta = tree.path("metadata");
        return (T) fromTree(replace(type, meta.path("namespace").asString(null), meta.path("name").asString(null),
                tree, true), object.getClass());
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
            tree = kind(type).objects.get(Kind.key(type.namespaced() ? namespace : null, name));
        }
        return Optional.ofNullable(tree).map(t -> fromTree(t, type.type()));
    }

    /** Every object of {@code type}, in key order. */
    public <T> List<T> list(ResourceType<T> type) {
        List<ObjectNode> trees;
        synchronized (this) {
            trees = new ArrayList<>(kind(type).objects.values());
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
    @SuppressWarnings("unchecked")
    public synchronized <T> ResourceType<T> registeredType(Class<T> model) {
        for (Kind kind : kinds.values()) {
            if (kind.type.type() == model) {
                return (ResourceType<T>) kind.type;
            }
        }
        ResourceType<T> type = ResourceType.of(model);
        register(type);
        return type;
    }

    private ResourceType<?> typeOf(Object object) {
        if (object instanceof DynamicObject dynamic) {
            String apiVersion = Objects.requireNonNull(dynamic.getApiVersion(), "apiVersion");
            synchronized (this) {
                for (Kind kind : kinds.values()) {
                    if (kind.type.apiVersion().equals(apiVersion) && kind.type.kind().equals(dynamic.getKind())) {
                        return kind.type;
                    }
                }
            }
            throw new IllegalArgumentException("no resource registered for " + apiVersion + " " + dynamic.getKind());
        }
        return registeredType(object.getClass());
    }

    // ---------------------------------------------------------------- the API, on trees

    /** POST: creates {@code body} in {@code namespace} (or the body's own). */
    public ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body) {
        ObjectNode created;
        synchronized (this) {
            Kind kind = kind(type);
            ObjectNode obj = body.deepCopy();
            ObjectNode meta = metadata(obj);
            String ns = namespaceFor(type, namespace, meta);
            String name = meta.path("name").asString("");
            if (name.isEmpty()) {
                String prefix = meta.path("generateName").asString("");
                if (prefix.isEmpty()) {
                    throw ApiError.invalid(type, "", "metadata.name: Required value: name or generateName is required");
                }
                name = prefix + randomSuffix();
            }
            String key = Kind.key(ns, name);
            if (kind.objects.containsKey(key)) {
                throw ApiError.alreadyExists(type, name);
            }
            obj.put("apiVersion", type.apiVersion());
            obj.put("kind", type.kind());
            meta.put("name", name);
            if (ns != null) {
                meta.put("namespace", ns);
            }
            meta.put("uid", new UUID(random.nextLong(), random.nextLong()).toString());
            meta.put("creationTimestamp", now());
            meta.put("generation", 1);
            meta.remove(List.of("deletionTimestamp", "deletionGracePeriodSeconds"));
            created = commit(kind, "ADDED", key, obj, null);
        }
        signal();
        return created;
    }

    /** PUT: replaces the object (or only its status); {@code body.metadata.resourceVersion}, if set, must be current. */
    public ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body,
                              boolean statusOnly) {
        ObjectNode result;
        synchronized (this) {
            Kind kind = kind(type);
            ObjectNode meta = metadata(body);
            String ns = namespaceFor(type, namespace, meta);
            if (name == null || (meta.has("name") && !name.equals(meta.path("name").asString()))) {
                throw ApiError.badRequest("the name of the object (" + meta.path("name").asString("")
                        + ") does not match the name on the URL (" + name + ")");
            }
            result = replaceLocked(kind, Kind.key(ns, name), name, body, statusOnly);
        }
        signal();
        return result;
    }

    /** PATCH: applies a patch to the object (or to its status); APPLY creates a missing object. */
    public ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                           boolean statusOnly) {
        ObjectNode result;
        synchronized (this) {
            Kind kind = kind(type);
            String ns = type.namespaced() ? requireNamespace(type, namespace) : null;
            String key = Kind.key(ns, name);
            ObjectNode old = kind.objects.get(key);
            if (old == null && patchType == PatchType.APPLY && !statusOnly) {
                if (!patch.isObject()) {
                    throw ApiError.badRequest("an apply patch must be an object");
                }
                ObjectNode body = (ObjectNode) patch.deepCopy();
                metadata(body).put("name", name);
                result = create(type, ns, body);
            } else {
                if (old == null) {
                    throw ApiError.notFound(type, name);
                }
                JsonNode patched = patchType == PatchType.JSON_PATCH ? Patches.jsonPatch(old, patch)
                        : Patches.merge(old, patch);
                if (!patched.isObject()) {
                    throw ApiError.badRequest("the patch did not produce an object");
                }
                result = replaceLocked(kind, key, name, (ObjectNode) patched, statusOnly);
            }
        }
        signal();
        return result;
    }

    /**
     * DELETE: removes the object, or, while it has finalizers, marks it with a deletionTimestamp (it
     * goes once an update empties its finalizers). Returns the object as deleted (or marked).
     */
    public ObjectNode delete(ResourceType<?> type, String namespace, String name) {
        ObjectNode result;
        synchronized (this) {
            Kind kind = kind(type);
            String ns = type.namespaced() ? requireNamespace(type, namespace) : null;
            String key = Kind.key(ns, name);
            ObjectNode old = kind.objects.get(key);
            if (old == null) {
                throw ApiError.notFound(type, name);
            }
            if (hasFinalizers(old)) {
                if (old.path("metadata").has("deletionTimestamp")) {
                    return old;
                }
                ObjectNode marked = old.deepCopy();
                metadata(marked).put("deletionTimestamp", now());
                metadata(marked).put("deletionGracePeriodSeconds", 0);
                result = commit(kind, "MODIFIED", key, marked, old);
            } else {
                result = commit(kind, "DELETED", key, old.deepCopy(), old);
            }
        }
        signal();
        return result;
    }

    /** GET. */
    public synchronized ObjectNode get(ResourceType<?> type, String namespace, String name) {
        Kind kind = kind(type);
        ObjectNode obj = kind.objects.get(Kind.key(type.namespaced() ? requireNamespace(type, namespace) : null, name));
        if (obj == null) {
            throw ApiError.notFound(type, name);
        }
        return obj;
    }

    /**
     * LIST of one page. {@code resourceVersion} unset or {@code ""}: the latest state; {@code "0"}:
     * the latest state, unpaginated (the limit is ignored, as the watch cache does); {@code N}: the
     * latest state if at least {@code N} (else 504 "Too large resource version"), or with
     * {@code resourceVersionMatch=Exact} the state at exactly {@code N} (410 when compacted).
     * A continue token lists at its first page's version, or fails with 410 once that is compacted.
     */
    public synchronized ListResult list(ResourceType<?> type, String namespace, ListOptions options) {
        Kind kind = kind(type);
        Selector labels = Selector.labels(options.labelSelector());
        Selector fields = Selector.fields(options.fieldSelector());
        String ns = type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
        String rvParam = options.resourceVersion();
        Integer limit = options.limit();
        long at;
        String start = null;
        if (options.continueToken() != null && !options.continueToken().isEmpty()) {
            ContinueToken token = ContinueToken.decode(options.continueToken());
            if (token.resourceVersion() < compactedTo) {
                throw ApiError.continueExpired();
            }
            at = token.resourceVersion();
            start = token.start();
        } else if (rvParam == null || rvParam.isEmpty()) {
            at = resourceVersion;
        } else if (rvParam.equals("0")) {
            at = resourceVersion;
            limit = null;
        } else {
            long requested = parseVersion(rvParam);
            if (requested > resourceVersion) {
                throw ApiError.tooLarge(requested, resourceVersion);
            }
            if ("Exact".equals(options.resourceVersionMatch())) {
                if (requested < compactedTo) {
                    throw ApiError.tooOld(requested, compactedTo + 1);
                }
                at = requested;
            } else {
                at = resourceVersion;
            }
        }
        NavigableMap<String, ObjectNode> snapshot = snapshot(kind, at);
        if (start != null) {
            snapshot = snapshot.tailMap(start, true);
        }
        List<ObjectNode> items = new ArrayList<>();
        String continueToken = null;
        Long remaining = null;
        int max = limit == null || limit <= 0 ? Integer.MAX_VALUE : limit;
        int count = 0;
        String lastKey = null;
        for (Map.Entry<String, ObjectNode> e : snapshot.entrySet()) {
            ObjectNode obj = e.getValue();
            if (ns != null && !ns.equals(obj.path("metadata").path("namespace").asString(""))) {
                continue;
            }
            if (!labels.matches(obj) || !fields.matches(obj)) {
                continue;
            }
            if (items.size() == max) {
                count++;
                continue;
            }
            items.add(obj);
            lastKey = e.getKey();
        }
        if (count > 0) {
            continueToken = new ContinueToken(at, lastKey + "\u0000").encode();
            remaining = labels.isEverything() && fields.isEverything() ? (long) count : null;
        }
        return new ListResult(items, Long.toString(at), continueToken, remaining);
    }

    /**
     * WATCH. Request errors (unknown selector field, bad version) throw {@link ApiError} here; a
     * version older than the history becomes an {@code ERROR} 410 event in the stream, as the real
     * server sends it. With no (or {@code "0"}) resourceVersion, or with {@code sendInitialEvents},
     * the stream starts with the current objects as {@code ADDED} events; with
     * {@code sendInitialEvents} a bookmark annotated {@value #INITIAL_EVENTS_END} follows them.
     * The stream completes after {@code timeoutSeconds} on the scheduler.
     */
    public Flux<StreamEvent> watch(ResourceType<?> type, String namespace, WatchOptions options) {
        Kind kind;
        synchronized (this) {
            kind = kind(type);
        }
        Selector labels = Selector.labels(options.labelSelector());
        Selector fields = Selector.fields(options.fieldSelector());
        String rv = options.resourceVersion();
        Long requested = rv == null || rv.isEmpty() || rv.equals("0") ? null : parseVersion(rv);
        if (options.sendInitialEvents()
                && (!"NotOlderThan".equals(options.resourceVersionMatch()) || !options.allowBookmarks())) {
            throw new ApiError(422, "Invalid", "sendInitialEvents requires resourceVersionMatch=NotOlderThan and "
                    + "allowWatchBookmarks=true", null, null);
        }
        String ns = type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
        Flux<StreamEvent> events = Flux.create(sink -> {
            Watcher watcher = new Watcher(this, kind, ns, labels, fields, options.allowBookmarks());
            open(watcher, sink, requested, options.sendInitialEvents());
            Disposable bookmarks = options.allowBookmarks()
                    ? Flux.interval(bookmarkInterval, bookmarkInterval, scheduler).subscribe(t -> watcher.requestBookmark())
                    : null;
            sink.onRequest(n -> watcher.drain());
            sink.onDispose(() -> {
                forget(watcher);
                if (bookmarks != null) {
                    bookmarks.dispose();
                }
            });
        }, FluxSink.OverflowStrategy.BUFFER);
        Integer timeout = options.timeoutSeconds();
        return timeout == null || timeout <= 0 ? events
                : events.takeUntilOther(Mono.delay(Duration.ofSeconds(timeout), scheduler));
    }

    private void open(Watcher watcher, FluxSink<StreamEvent> sink, Long requested, boolean sendInitialEvents) {
        List<StreamEvent> initial = new ArrayList<>();
        boolean completeAfterInitial = false;
        synchronized (this) {
            if (requested == null || sendInitialEvents) {
                if (requested != null && requested > resourceVersion) {
                    initial.add(new StreamEvent("ERROR", statusTree(ApiError.tooLarge(requested, resourceVersion))));
                    completeAfterInitial = true;
                } else {
                    for (ObjectNode obj : watcher.kind.objects.values()) {
                        if (watcher.matches(obj)) {
                            initial.add(new StreamEvent("ADDED", obj));
                        }
                    }
                    if (sendInitialEvents) {
                        ObjectNode end = bookmarkTree(watcher.kind, resourceVersion);
                        metadata(end).putObject("annotations").put(INITIAL_EVENTS_END, "true");
                        initial.add(new StreamEvent("BOOKMARK", end));
                    }
                }
                watcher.cursor = resourceVersion;
            } else if (requested < compactedTo) {
                initial.add(new StreamEvent("ERROR", statusTree(ApiError.tooOld(requested, compactedTo + 1))));
                completeAfterInitial = true;
            } else {
                watcher.cursor = requested;
            }
            watcher.start(sink, initial, completeAfterInitial);
            if (!completeAfterInitial) {
                watchers.add(watcher);
            }
        }
    }

    /** Stops feeding a watcher that has ended. */
    void forget(Watcher watcher) {
        watchers.remove(watcher);
    }

    /** The 410 event for a watcher the history has left behind, or {@code null}. */
    synchronized StreamEvent expiry(Watcher watcher) {
        if (watcher.cursor < compactedTo) {
            return new StreamEvent("ERROR", statusTree(ApiError.tooOld(watcher.cursor, compactedTo + 1)));
        }
        return null;
    }

    /** Up to {@code demand} events for {@code watcher} from its cursor on, advancing it. */
    synchronized List<StreamEvent> collect(Watcher watcher, long demand) {
        List<StreamEvent> out = new ArrayList<>();
        long rv = watcher.cursor + 1;
        while (rv <= resourceVersion && out.size() < demand) {
            Change change = history[(int) (rv % historyLimit)];
            if (change.kind() == watcher.kind) {
                StreamEvent event = watcher.translate(change);
                if (event != null) {
                    out.add(event);
                }
            }
            watcher.cursor = rv++;
        }
        if (watcher.cursor == resourceVersion && watcher.bookmarkWanted && out.size() < demand) {
            watcher.bookmarkWanted = false;
            out.add(new StreamEvent("BOOKMARK", bookmarkTree(watcher.kind, resourceVersion)));
        }
        return out;
    }

    // ---------------------------------------------------------------- internals

    private ObjectNode replaceLocked(Kind kind, String key, String name, ObjectNode body, boolean statusOnly) {
        ResourceType<?> type = kind.type;
        ObjectNode old = kind.objects.get(key);
        if (old == null) {
            throw ApiError.notFound(type, name);
        }
        String expected = body.path("metadata").path("resourceVersion").asString("");
        if (!expected.isEmpty() && !expected.equals(old.path("metadata").path("resourceVersion").asString())) {
            throw ApiError.conflict(type, name);
        }
        ObjectNode next;
        if (statusOnly) {
            next = old.deepCopy();
            if (body.has("status")) {
                next.set("status", body.get("status").deepCopy());
            } else {
                next.remove("status");
            }
        } else {
            next = body.deepCopy();
            if (kind.statusSubresource) {
                if (old.has("status")) {
                    next.set("status", old.get("status").deepCopy());
                } else {
                    next.remove("status");
                }
            }
            ObjectNode meta = metadata(next);
            JsonNode oldMeta = old.get("metadata");
            for (String kept : List.of("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                    "deletionGracePeriodSeconds", "generation")) {
                if (oldMeta.has(kept)) {
                    meta.set(kept, oldMeta.get(kept).deepCopy());
                } else {
                    meta.remove(kept);
                }
            }
            if (!withoutMetaAndStatus(old).equals(withoutMetaAndStatus(next))) {
                meta.put("generation", oldMeta.path("generation").asLong(0) + 1);
            }
        }
        next.put("apiVersion", type.apiVersion());
        next.put("kind", type.kind());
        metadata(next).put("resourceVersion", old.path("metadata").path("resourceVersion").asString());
        if (next.equals(old)) {
            return old;
        }
        if (next.path("metadata").has("deletionTimestamp") && !hasFinalizers(next)) {
            return commit(kind, "DELETED", key, next, old);
        }
        return commit(kind, "MODIFIED", key, next, old);
    }

    private static ObjectNode withoutMetaAndStatus(ObjectNode obj) {
        ObjectNode copy = obj.deepCopy();
        copy.remove(List.of("metadata", "status", "apiVersion", "kind"));
        return copy;
    }

    /** Takes the next resourceVersion, stores the object under it and appends the change. Holds the lock. */
    private ObjectNode commit(Kind kind, String type, String key, ObjectNode object, ObjectNode previous) {
        long rv = ++resourceVersion;
        metadata(object).put("resourceVersion", Long.toString(rv));
        if (type.equals("DELETED")) {
            kind.objects.remove(key);
        } else {
            kind.objects.put(key, object);
        }
        history[(int) (rv % historyLimit)] = new Change(rv, kind, type, key, object, previous);
        if (rv - compactedTo > historyLimit) {
            compactedTo = rv - historyLimit;
        }
        return object;
    }

    /** Feeds every watcher; called after the lock is released. */
    private void signal() {
        for (Watcher w : watchers) {
            w.drain();
        }
    }

    /** The objects of {@code kind} as they were at {@code rv}: the current ones with newer changes undone. */
    private NavigableMap<String, ObjectNode> snapshot(Kind kind, long rv) {
        if (rv == resourceVersion) {
            return kind.objects;
        }
        TreeMap<String, ObjectNode> objects = new TreeMap<>(kind.objects);
        for (long v = resourceVersion; v > rv; v--) {
            Change change = history[(int) (v % historyLimit)];
            if (change.kind() != kind) {
                continue;
            }
            if (change.previous() == null) {
                objects.remove(change.key());
            } else {
                objects.put(change.key(), change.previous());
            }
        }
        return objects;
    }

    private Kind kind(ResourceType<?> type) {
        Kind kind = kinds.get(Kind.id(type.group(), type.version(), type.plural()));
        if (kind == null) {
            throw ApiError.pathNotFound();
        }
        return kind;
    }

    private static String namespaceFor(ResourceType<?> type, String namespace, ObjectNode meta) {
        if (!type.namespaced()) {
            meta.remove("namespace");
            return null;
        }
        String own = meta.path("namespace").asString("");
        if (namespace != null && !namespace.isEmpty()) {
            if (!own.isEmpty() && !own.equals(namespace)) {
                throw ApiError.badRequest("the namespace of the provided object does not match the namespace sent on"
                        + " the request");
            }
            return namespace;
        }
        return requireNamespace(type, own);
    }

    private static String requireNamespace(ResourceType<?> type, String namespace) {
        if (namespace == null || namespace.isEmpty()) {
            throw ApiError.badRequest("a namespace is required for " + type.plural());
        }
        return namespace;
    }

    private static ObjectNode metadata(ObjectNode obj) {
        JsonNode meta = obj.get("metadata");
        if (meta instanceof ObjectNode m) {
            return m;
        }
        return obj.putObject("metadata");
    }

    private static boolean hasFinalizers(ObjectNode obj) {
        JsonNode finalizers = obj.path("metadata").path("finalizers");
        return finalizers.isArray() && !finalizers.isEmpty();
    }

    private ObjectNode bookmarkTree(Kind kind, long rv) {
        ObjectNode tree = json.mapper().createObjectNode();
        tree.put("kind", kind.type.kind());
        tree.put("apiVersion", kind.type.apiVersion());
        tree.putObject("metadata").put("resourceVersion", Long.toString(rv));
        return tree;
    }

    /** The {@code Status} of an error, as a tree. */
    public ObjectNode statusTree(ApiError error) {
        return json.mapper().valueToTree(error.toStatus());
    }

    private String now() {
        return Instant.ofEpochMilli(scheduler.now(TimeUnit.MILLISECONDS)).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private String randomSuffix() {
        StringBuilder b = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            b.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
        }
        return b.toString();
    }

    private static long parseVersion(String rv) {
        try {
            long v = Long.parseLong(rv);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw ApiError.badRequest("invalid resource version: \"" + rv + "\"");
    }

    /** The opaque continue token: the version of the first page and the key to resume from. */
    private record ContinueToken(long resourceVersion, String start) {

        String encode() {
            String text = "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + resourceVersion + ",\"start\":"
                    + KubernetesJson.defaults().mapper().writeValueAsString(start) + "}";
            return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        }

        static ContinueToken decode(String token) {
            try {
                JsonNode node = KubernetesJson.defaults().mapper().readTree(Base64.getUrlDecoder().decode(token));
                if (!node.path("rv").canConvertToLong() || !node.path("start").isString()) {
                    throw new IllegalArgumentException("missing fields");
                }
                return new ContinueToken(node.path("rv").asLong(), node.path("start").asString());
            } catch (IllegalArgumentException | JacksonException e) {
                throw ApiError.badRequest("continue key is not valid: " + e.getMessage());
            }
        }
    }

    /** For diagnostics: the kinds and how many objects each holds. */
    @Override
    public synchronized String toString() {
        StringBuilder b = new StringBuilder("ClusterState[rv=").append(resourceVersion).append(", oldest=")
                .append(compactedTo);
        for (Kind kind : kinds.values()) {
            if (!kind.objects.isEmpty()) {
                b.append(", ").append(kind.type.plural()).append('=').append(kind.objects.size());
            }
        }
        return b.append(']').toString();
    }

    /** Every stored object of {@code type}, as trees (shared, read-only). */
    public synchronized Collection<ObjectNode> trees(ResourceType<?> type) {
        return List.copyOf(kind(type).objects.values());
    }
}
