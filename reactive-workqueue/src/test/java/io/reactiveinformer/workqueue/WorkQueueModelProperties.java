package io.reactiveinformer.workqueue;

import static io.reactiveinformer.workqueue.Queues.tryGet;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Random add/get/done/shutDown sequences against a direct transcription of client-go's three sets
 * (queue, dirty, processing), with this project's shutdown fix: a consumer is only told the queue
 * ended when nothing is queued and nothing processing is dirty.
 */
class WorkQueueModelProperties {

    record Op(String kind, String item) {}

    /** client-go's {@code Type}. */
    static final class Model {
        final ArrayDeque<String> queue = new ArrayDeque<>();
        final Set<String> dirty = new HashSet<>();
        final Set<String> processing = new HashSet<>();
        boolean shuttingDown;

        void add(String item) {
            if (shuttingDown || dirty.contains(item)) {
                return;
            }
            dirty.add(item);
            if (!processing.contains(item)) {
                queue.addLast(item);
            }
        }

        String get() {
            String item = queue.pollFirst();
            if (item != null) {
                processing.add(item);
                dirty.remove(item);
            }
            return item;
        }

        void done(String item) {
            processing.remove(item);
            if (dirty.contains(item)) {
                queue.addLast(item);
            }
        }

        boolean ended() {
            return shuttingDown && queue.isEmpty() && processing.stream().noneMatch(dirty::contains);
        }
    }

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<String> items = Arbitraries.of("a", "b", "c", "d");
        Arbitrary<String> kinds = Arbitraries.frequency(
                net.jqwik.api.Tuple.of(6, "add"),
                net.jqwik.api.Tuple.of(4, "get"),
                net.jqwik.api.Tuple.of(4, "done"),
                net.jqwik.api.Tuple.of(1, "shutDown"));
        return Combinators.combine(kinds, items).as(Op::new).list().ofMaxSize(60);
    }

    @Property(tries = 300)
    void behavesLikeClientGo(@ForAll("operations") List<Op> ops) {
        WorkQueue<String> queue = Queues.virtual(VirtualTimeScheduler.create());
        Model model = new Model();
        List<String> held = new ArrayList<>();

        for (Op op : ops) {
            switch (op.kind()) {
                case "add" -> {
                    queue.add(op.item());
                    model.add(op.item());
                }
                case "get" -> {
                    String expected = model.get();
                    String actual = tryGet(queue);
                    assertThat(actual).as("get after %s", ops).isEqualTo(expected);
                    if (actual != null) {
                        held.add(actual);
                    }
                }
                case "done" -> {
                    if (!held.isEmpty()) {
                        String item = held.remove(held.size() - 1);
                        queue.done(item);
                        model.done(item);
                    } else {
                        // client-go would queue a pending item twice here; this queue ignores the stray done
                        queue.done(op.item());
                        if (model.processing.contains(op.item())) {
                            model.done(op.item());
                        }
                    }
                }
                default -> {
                    queue.shutDown();
                    model.shuttingDown = true;
                }
            }
            assertThat(queue.size()).isEqualTo(model.queue.size());
            if (model.queue.isEmpty()) {
                // probing with a get is only side-effect free when nothing is ready
                assertThat(ended(queue)).isEqualTo(model.ended());
            }
        }
    }

    /** True if a get would complete empty right now; takes nothing. */
    private static boolean ended(WorkQueue<String> queue) {
        boolean[] completedEmpty = {false};
        boolean[] gotItem = {false};
        var subscription = queue.get().subscribe(item -> gotItem[0] = true, e -> {}, () -> completedEmpty[0] = !gotItem[0]);
        subscription.dispose();
        if (gotItem[0]) {
            throw new AssertionError("probe took an item");
        }
        return completedEmpty[0];
    }
}
