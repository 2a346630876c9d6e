package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.EventsV1Event;
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
import io.reactiveinformer.api.ShardSelector;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

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
 * <p>This class is the facade: it holds the lock and orders each request; the parts do the work.
 * Its length is that of the public API it keeps: the builder and some forty short entry points.
 * {@link ObjectStore} stores (the {@link ResourceRegistry} of kinds, each with its objects and its
 * {@link History}; the resourceVersion; compaction), {@link Writer} serves the write verbs with
 * {@link ObjectSemantics} and {@link DeletionRules} deciding what a write makes of an object,
 * {@link ListPaginator} serves LIST, {@link WatchHub} WATCH, and {@link TypedObjects} the typed
 * methods ({@link #create(Object)}, {@link #list(ResourceType)}, ...), which convert through
 * {@link KubernetesJson}.
 *
 * <p>Objects are stored as JSON trees, so any kind (official model, CRD POJO, {@link DynamicObject})
 * is handled alike; trees handed out are shared and must not be mutated.
 *
 * <p>Threading: thread-safe, with one lock: this object's monitor. It guards everything the
 * {@link ObjectStore} holds (the registry, every kind's objects (with their managedFields) and history, the
 * resourceVersion and the compaction point) and every watcher's cursor; the parts are not
 * thread-safe and are called with it held ({@link WatchHub} and {@link TypedObjects} take it
 * themselves to read). One lock is what keeps a request's checks and its commit one step, and the
 * versions of the histories in commit order. A write holds it for microseconds and never blocks;
 * after releasing it, the writing thread feeds the watchers (see {@code mutate}), so no event is
 * emitted under the lock. Watchers are fed on the thread that mutates (or that requests more), never
 * buffered beyond the history. Timestamps read the scheduler's clock; watch timeouts and periodic
 * bookmarks run on it.
 */
public final class ClusterState {

    /** The annotation of the bookmark that ends a streaming list's initial events. */
    public static final String INITIAL_EVENTS_END = "k8s.io/initial-events-end";

    private final KubernetesJson json;
    private final Scheduler scheduler;
    private final ObjectStore store;
    private final Writer writer;
    private final WatchHub hub;
    private final TypedObjects typed;
    private final boolean shardedListAndWatch;

    private ClusterState(Builder b) {
        this.json = b.json;
        this.scheduler = b.scheduler;
        this.store = new ObjectStore(b.historyLimit);
        ServerClock clock = new ServerClock(b.scheduler);
        this.writer = new Writer(store, new ObjectSemantics(new SplittableRandom(b.seed), clock),
                new DeletionRules(clock), new ServerSideApply(clock), b.json.mapper(), b.requireNamespaces);
        this.hub = new WatchHub(this, store, b.scheduler, b.bookmarkInterval);
        this.typed = new TypedObjects(this, store, b.json);
        this.shardedListAndWatch = b.shardedListAndWatch;
        for (Map.Entry<ResourceType<?>, Boolean> e : b.resources.entrySet()) {
            store.register(e.getKey(), e.getValue(), b.schemas.get(e.getKey()));
            json.prepare(e.getKey().type());
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
        private final Map<ResourceType<?>, Schema> schemas = new HashMap<>();
        private KubernetesJson json = KubernetesJson.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private int historyLimit = 1000;
        private Duration bookmarkInterval = Duration.ofMinutes(1);
        private long seed;
        private boolean requireNamespaces;
        private boolean shardedListAndWatch = true;

        private Builder() {
            for (Class<?> model : List.of(V1Namespace.class, V1Node.class, V1Pod.class, V1ConfigMap.class,
                    V1Secret.class, V1Service.class, V1Deployment.class, V1Lease.class)) {
                resources.put(ResourceType.of(model), model != V1ConfigMap.class && model != V1Secret.class
                        && model != V1Lease.class);
            }
            resources.put(ResourceType.namespaced("", "v1", "events", "Event", CoreV1Event.class), false);
            resources.put(ResourceType.of(EventsV1Event.class), false);
        }

        /** Adds a resource with a {@code status} subresource (as CRDs declaring one, and most built-in kinds). */
        public Builder resource(ResourceType<?> type) {
            return resource(type, true);
        }

        public Builder resource(ResourceType<?> type, boolean statusSubresource) {
            resources.put(type, statusSubresource);
            return this;
        }

        /**
         * Adds the custom resource a CustomResourceDefinition ({@code apiextensions.k8s.io/v1}, as a
         * tree) defines, served as {@link DynamicObject}s. Honoured: group, {@code names.plural} and
         * {@code names.kind}, scope, the {@code status} subresource, and the {@code openAPIV3Schema},
         * by which every create, update and patch is pruned (fields it does not declare are dropped
         * unless under {@code x-kubernetes-preserve-unknown-fields}; the {@code fieldValidation} query
         * parameter says whether they are refused, warned about or ignored) and validated (types,
         * {@code required}, {@code enum}, bounds, lengths, {@code pattern}, item counts,
         * {@code nullable}, some formats), answering 422 with the real server's causes. Not honoured:
         * {@code default}s, CEL rules, conversion, the {@code scale} subresource, printer columns.
         *
         * @throws IllegalArgumentException if it is not a definition, or serves other than exactly one version
         */
        public Builder customResource(JsonNode definition) {
            CustomResourceDefinition crd = CustomResourceDefinition.of(definition);
            resources.put(crd.type(), crd.statusSubresource());
            schemas.put(crd.type(), crd.schema());
            return this;
        }

        /**
         * {@link #customResource(JsonNode)} with the definition in a YAML (or JSON) file of one
         * document, such as a chart's or operator's {@code crds/} file.
         *
         * @throws UncheckedIOException if the file cannot be read
         */
        public Builder customResource(Path yaml) {
            try {
                return customResource(YAMLMapper.shared().readTree(Files.readString(yaml)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + yaml, e);
            }
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

        /**
         * Whether lists and watches honour {@code shardSelector} (KEP-5866) as kube-apiserver 1.36 with its alpha
         * {@code ShardedListAndWatch} feature gate on: only the objects whose uid or namespace hashes into the
         * ranges, the selector echoed in a list's {@code metadata.shardInfo.selector}, and a malformed selector
         * refused. Default {@code true}, as the test environment's server; {@code false} is a server with the gate
         * off (the default of a real 1.36 server, and any older one): the parameter is ignored, there is no echo.
         */
        public Builder shardedListAndWatch(boolean enabled) {
            this.shardedListAndWatch = enabled;
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
        store.register(type, statusSubresource, null);
        json.prepare(type.type());
        return this;
    }

    /** The registered resource at {@code group/version/plural}, as a URL names it. */
    public synchronized Optional<ResourceType<?>> resource(String group, String version, String plural) {
        return store.registry().find(group, version, plural).map(kind -> kind.type);
    }

    /** Every registered resource, in registration order. */
    public synchronized List<ResourceType<?>> resources() {
        return store.registry().all().stream().<ResourceType<?>>map(kind -> kind.type).toList();
    }

    /** The registered kind of {@code type} (404 when there is none), for what of it is immutable: type and schema. */
    synchronized Kind kind(ResourceType<?> type) {
        return store.registry().kind(type);
    }

    /**
     * Resolves the schema of every registered kind now: the first write of a kind prunes by it, and
     * parsing kube-apiserver's document (once per JVM) would otherwise stall the event loop serving it.
     */
    synchronized void prepareSchemas() {
        store.registry().all().forEach(Kind::schema);
    }

    /** Whether the resource has a {@code status} subresource. */
    synchronized boolean hasStatusSubresource(ResourceType<?> type) {
        return store.registry().kind(type).statusSubresource;
    }

    /** The current (latest) resourceVersion. */
    public synchronized long resourceVersion() {
        return store.resourceVersion();
    }

    /** The oldest resourceVersion a watch of {@code type} may still start from. */
    public synchronized long oldestResourceVersion(ResourceType<?> type) {
        return store.registry().kind(type).history.compactedTo();
    }

    /** Drops the whole history, like an etcd compaction at the current revision. */
    public void compact() {
        mutate(() -> {
            store.compact();
            return null;
        });
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
    public <T> T create(T object) {
        return typed.create(object);
    }

    /** Replaces {@code object}; a set resourceVersion must be current (else {@link ApiError} 409). */
    public <T> T update(T object) {
        return typed.replace(object, false);
    }

    /** Replaces the status of {@code object}. */
    public <T> T updateStatus(T object) {
        return typed.replace(object, true);
    }

    /** Deletes {@code object} (by its namespace and name). */
    public void delete(Object object) {
        typed.delete(object);
    }

    /** The object, or empty. */
    public <T> Optional<T> find(ResourceType<T> type, String namespace, String name) {
        return typed.find(type, namespace, name);
    }

    /** Every object of {@code type}, in key order. */
    public <T> List<T> list(ResourceType<T> type) {
        return typed.list(type);
    }

    /** Every object of an official model class. */
    public <T> List<T> list(Class<T> model) {
        return list(registeredType(model));
    }

    /** The tree of a typed object. */
    public ObjectNode toTree(Object object) {
        return typed.toTree(object);
    }

    /**
     * {@code item} of a list of {@code type} as kube-apiserver writes it: a built-in kind's items carry no
     * {@code kind} and {@code apiVersion} (the list does; its protobuf messages have no room for them), a custom
     * resource's carry them. {@code item} is not changed.
     */
    public ObjectNode asListItem(ResourceType<?> type, ObjectNode item) {
        if (Schema.builtIn(type).isEmpty() || !(item.has("kind") || item.has("apiVersion"))) {
            return item;
        }
        ObjectNode listed = item.objectNode();
        item.properties().forEach(property -> {
            if (!property.getKey().equals("kind") && !property.getKey().equals("apiVersion")) {
                listed.set(property.getKey(), property.getValue());
            }
        });
        return listed;
    }

    /** A typed copy of a stored tree. */
    public <T> T fromTree(JsonNode tree, Class<T> type) {
        return typed.fromTree(tree, type);
    }

    /** The registered resource for a model class or a POJO registered with its class. */
    public synchronized <T> ResourceType<T> registeredType(Class<T> model) {
        return store.registry().byModel(model).orElseGet(() -> {
            ResourceType<T> type = ResourceType.of(model);
            register(type);
            return type;
        });
    }

    // ---------------------------------------------------------------- the API, on trees

    /**
     * POST: creates {@code body} in {@code namespace} (or the body's own). Writes through these methods
     * record their field ownership under the field manager kube-apiserver derives for a request
     * without User-Agent: the empty name.
     */
    public ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body) {
        return create(type, namespace, body, false, null);
    }

    /** POST by {@code fieldManager} (see {@link Writer}). */
    ObjectNode create(ResourceType<?> type, String namespace, ObjectNode body, boolean dryRun, String fieldManager) {
        return mutate(() -> writer.create(type, namespace, body, dryRun, fieldManager));
    }

    /** PUT: replaces the object (or only its status); {@code body.metadata.resourceVersion}, if set, must be current. */
    public ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body,
                              boolean statusOnly) {
        return replace(type, namespace, name, body, statusOnly, false, null);
    }

    ObjectNode replace(ResourceType<?> type, String namespace, String name, ObjectNode body, boolean statusOnly,
                       boolean dryRun, String fieldManager) {
        return mutate(() -> writer.replace(type, namespace, name, body, statusOnly, dryRun, fieldManager));
    }

    /** PATCH: applies a patch to the object (or to its status); APPLY creates a missing object. */
    public ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                           boolean statusOnly) {
        return patch(type, namespace, name, patchType, patch, statusOnly, false, null, false);
    }

    /** PATCH by {@code fieldManager}; an apply with {@code force} takes the fields other managers own. */
    ObjectNode patch(ResourceType<?> type, String namespace, String name, PatchType patchType, JsonNode patch,
                     boolean statusOnly, boolean dryRun, String fieldManager, boolean force) {
        return mutate(() -> writer.patch(type, namespace, name, patchType, patch, statusOnly, dryRun, fieldManager,
                force));
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
        return mutate(() -> writer.delete(type, namespace, name, options, dryRun));
    }

    /** DELETE of a collection: every object matching the selectors, as one DELETE each would. */
    List<Deletion> deleteCollection(ResourceType<?> type, String namespace, ListOptions selectors,
                                    DeleteOptions options, boolean dryRun) {
        return mutate(() -> writer.deleteCollection(type, namespace, selectors, options, dryRun));
    }

    /** GET. */
    public synchronized ObjectNode get(ResourceType<?> type, String namespace, String name) {
        Kind kind = store.registry().kind(type);
        String ns = type.namespaced() ? ObjectSemantics.requireNamespace(type, namespace) : null;
        ObjectNode obj = kind.objects.get(Kind.key(ns, name));
        if (obj == null) {
            throw ApiError.notFound(type, name);
        }
        return obj;
    }

    /**
     * LIST of one page; see {@link ListPaginator#page} for the versions a request reads. The shard selector
     * is ignored unless {@link Builder#shardedListAndWatch the gate} is on.
     */
    public synchronized ListResult list(ResourceType<?> type, String namespace, ListOptions options) {
        return ListPaginator.page(store.registry().kind(type), store.resourceVersion(), namespace,
                shardedListAndWatch ? options : options.withShardSelector(null));
    }

    /**
     * The {@code shardSelector} query parameter as this server reads it: {@code null} when absent or when the
     * gate is off (ignored, as by a server without it), else parsed, or an {@link ApiError} as the real server's.
     */
    ShardSelector shardSelectorParameter(String value) {
        return value == null || !shardedListAndWatch ? null : ShardSelectorParser.parse(value);
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
            kind = store.registry().kind(type);
        }
        return hub.watch(kind, namespace, shardedListAndWatch ? options : options.withShardSelector(null));
    }

    /**
     * Runs {@code write} (a change to the store) under the lock, then, with the lock released, feeds
     * every watcher. The order is what makes it safe: a watcher reads only committed history, and
     * never emits under the lock. A write that throws commits nothing and feeds no one.
     */
    private <R> R mutate(Supplier<R> write) {
        R result;
        synchronized (this) {
            result = write.get();
        }
        hub.signal();
        return result;
    }

    /** The {@code Status} of an error, as a tree. */
    public ObjectNode statusTree(ApiError error) {
        return json.mapper().valueToTree(error.toStatus());
    }

    /** For diagnostics: the kinds and how many objects each holds. */
    @Override
    public synchronized String toString() {
        return "ClusterState[" + store.summary() + "]";
    }

    /** Every stored object of {@code type}, as trees (shared, read-only). */
    public synchronized Collection<ObjectNode> trees(ResourceType<?> type) {
        return List.copyOf(store.registry().kind(type).objects.values());
    }
}
