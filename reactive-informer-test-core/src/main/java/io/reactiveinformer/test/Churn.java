package io.reactiveinformer.test;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.test.server.ClusterState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.node.ObjectNode;

/**
 * Seeded random changes to the objects of one resource: creates, updates (an annotation) and
 * deletes, so the same seed gives the same sequence. Objects are made from their metadata alone, so
 * any kind whose objects need nothing else works (ConfigMaps, Secrets, most custom resources); they are
 * named {@code churn-N} and labelled {@code churn=true}.
 *
 * <p>A churn writes either straight into a simulated server's {@link ClusterState} ({@link #Churn}), where
 * a change is done when the call returns, or through the library's client ({@link #through}), to any
 * server: the simulated one over HTTP, the test environment's kube-apiserver or a real cluster. The
 * sequence of changes depends on the seed only: a change is drawn when it is asked for, not when the
 * server answers.
 *
 * <p>Not thread-safe: drive one instance from one thread (or one {@link #every} stream).
 */
public final class Churn {

    private final Writer writer;
    private final Scheduler scheduler;
    private final SplittableRandom random;
    private final List<String> names = new ArrayList<>();
    private int created;
    private long steps;

    /** Changes to {@code state}'s objects of {@code type}, made synchronously; {@link #every} runs on its scheduler. */
    public Churn(ClusterState state, ResourceType<?> type, String namespace, long seed) {
        this(new StateWriter(state, type, type.namespaced() ? namespace : null), state.scheduler(), seed);
        state.register(type);
    }

    private Churn(Writer writer, Scheduler scheduler, long seed) {
        this.writer = writer;
        this.scheduler = scheduler;
        this.random = new SplittableRandom(seed);
    }

    /**
     * Changes to objects of {@code type} in {@code namespace} (ignored for a cluster-scoped type) through
     * {@code client}; {@link #every} runs on {@link Schedulers#parallel()}. The namespace must exist.
     */
    public static Churn through(KubernetesClient client, ResourceType<?> type, String namespace, long seed) {
        ResourceClient<DynamicObject> objects = client.resource(ResourceType.dynamic(type.group(), type.version(),
                type.plural(), type.kind(), type.namespaced()));
        return new Churn(new ClientWriter(type.namespaced() ? objects.inNamespace(namespace) : objects, type,
                type.namespaced() ? namespace : null), Schedulers.parallel(), seed);
    }

    /**
     * One change: with no object yet a create; else 40 % create, 40 % update, 20 % delete. The change is
     * drawn now; it is made when the returned {@code Mono} is subscribed (once), which completes when the
     * server has made it. Errors are the server's, typed as the client's.
     */
    public Mono<Void> next() {
        return writer.make(draw());
    }

    /**
     * One change, made before this returns. Through a client this waits for the server's answer, so call
     * it from a test's own thread, never from a non-blocking one (use {@link #next()} there).
     */
    public void step() {
        writer.makeNow(draw());
    }

    /** {@code count} changes now, one after another (see {@link #step()}). */
    public void run(int count) {
        for (int i = 0; i < count; i++) {
            step();
        }
    }

    /**
     * {@code count} changes, one every {@code period} (on the state's scheduler, or {@code parallel()} through
     * a client); emits each change's number once the server has made it. A change that takes longer than the
     * period delays the ones after it rather than overlapping them.
     */
    public Flux<Long> every(Duration period, int count) {
        return Flux.interval(period, scheduler).take(count).onBackpressureBuffer()
                .concatMap(i -> next().thenReturn(i), 1);
    }

    /** The names of the objects this churn created and did not delete. */
    public List<String> live() {
        return List.copyOf(names);
    }

    private Change draw() {
        steps++;
        int draw = names.isEmpty() ? 0 : random.nextInt(10);
        if (draw < 4) {
            String name = "churn-" + created++;
            names.add(name);
            return new Change(Change.Kind.CREATE, name, steps);
        }
        if (draw < 8) {
            return new Change(Change.Kind.ANNOTATE, names.get(random.nextInt(names.size())), steps);
        }
        return new Change(Change.Kind.DELETE, names.remove(random.nextInt(names.size())), steps);
    }

    /** A create, an update of the {@code churn/step} annotation to {@code step}, or a delete of {@code name}. */
    private record Change(Kind kind, String name, long step) {
        enum Kind { CREATE, ANNOTATE, DELETE }
    }

    /** Where changes go. */
    private interface Writer {
        /** Makes the change when subscribed. */
        Mono<Void> make(Change change);

        /** Makes the change before returning. */
        void makeNow(Change change);
    }

    private record StateWriter(ClusterState state, ResourceType<?> type, String namespace) implements Writer {

        @Override
        public Mono<Void> make(Change change) {
            return Mono.fromRunnable(() -> makeNow(change));
        }

        @Override
        public void makeNow(Change change) {
            ObjectNode tree = state.json().mapper().createObjectNode();
            ObjectNode meta = tree.putObject("metadata");
            switch (change.kind()) {
                case CREATE -> {
                    meta.put("name", change.name());
                    if (namespace != null) {
                        meta.put("namespace", namespace);
                    }
                    meta.putObject("labels").put("churn", "true");
                    state.create(type, namespace, tree);
                }
                case ANNOTATE -> {
                    meta.putObject("annotations").put("churn/step", Long.toString(change.step()));
                    state.patch(type, namespace, change.name(), PatchType.MERGE, tree, false);
                }
                case DELETE -> state.delete(type, namespace, change.name());
            }
        }
    }

    private record ClientWriter(ResourceClient<DynamicObject> objects, ResourceType<?> type, String namespace)
            implements Writer {

        @Override
        public Mono<Void> make(Change change) {
            return switch (change.kind()) {
                case CREATE -> Mono.defer(() -> objects.create(new DynamicObject(type.apiVersion(), type.kind(),
                        new V1ObjectMeta().name(change.name()).namespace(namespace)
                                .labels(Map.of("churn", "true"))))).then();
                case ANNOTATE -> objects.patch(change.name(), PatchType.MERGE,
                        "{\"metadata\":{\"annotations\":{\"churn/step\":\"" + change.step() + "\"}}}").then();
                case DELETE -> objects.delete(change.name());
            };
        }

        @Override
        public void makeNow(Change change) {
            make(change).block();
        }
    }
}
