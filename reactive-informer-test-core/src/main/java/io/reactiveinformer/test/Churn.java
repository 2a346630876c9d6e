package io.reactiveinformer.test;

import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.test.server.ClusterState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import reactor.core.publisher.Flux;
import tools.jackson.databind.node.ObjectNode;

/**
 * Seeded random changes to the objects of one resource: creates, updates (an annotation) and
 * deletes, so the same seed gives the same sequence. Objects are made from their metadata alone, so
 * any kind works; they are named {@code churn-N} and labelled {@code churn=true}.
 *
 * <p>Not thread-safe: drive one instance from one thread (or one {@link #every} stream).
 */
public final class Churn {

    private final ClusterState state;
    private final ResourceType<?> type;
    private final String namespace;
    private final SplittableRandom random;
    private final List<String> names = new ArrayList<>();
    private int created;
    private long steps;

    public Churn(ClusterState state, ResourceType<?> type, String namespace, long seed) {
        this.state = state;
        this.type = type;
        this.namespace = type.namespaced() ? namespace : null;
        this.random = new SplittableRandom(seed);
        state.register(type);
    }

    /** One change: with no object yet a create; else 40 % create, 40 % update, 20 % delete. */
    public void step() {
        steps++;
        int draw = names.isEmpty() ? 0 : random.nextInt(10);
        if (draw < 4) {
            String name = "churn-" + created++;
            ObjectNode tree = state.json().mapper().createObjectNode();
            ObjectNode meta = tree.putObject("metadata");
            meta.put("name", name);
            if (namespace != null) {
                meta.put("namespace", namespace);
            }
            meta.putObject("labels").put("churn", "true");
            state.create(type, namespace, tree);
            names.add(name);
        } else if (draw < 8) {
            String name = names.get(random.nextInt(names.size()));
            ObjectNode patch = state.json().mapper().createObjectNode();
            patch.putObject("metadata").putObject("annotations").put("churn/step", Long.toString(steps));
            state.patch(type, namespace, name, PatchType.MERGE, patch, false);
        } else {
            state.delete(type, namespace, names.remove(random.nextInt(names.size())));
        }
    }

    /** {@code count} changes now. */
    public void run(int count) {
        for (int i = 0; i < count; i++) {
            step();
        }
    }

    /** {@code count} changes, one every {@code period} on the state's scheduler; emits each step's number. */
    public Flux<Long> every(Duration period, int count) {
        return Flux.interval(period, state.scheduler()).take(count).doOnNext(i -> step());
    }

    /** The names of the objects this churn created and did not delete. */
    public List<String> live() {
        return List.copyOf(names);
    }
}
