package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.cache.ObjectKeys;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Random adds, updates, deletes, changes the watch misses, relists and late handlers: in the end the
 * cache equals the server's state, and so does the map each handler rebuilds from its notifications;
 * whether the informer lists with streaming lists (the default) or with LIST.
 */
class ConvergenceTest {

    private static final int KEYS = 6;

    @Property(tries = 60)
    void withStreamingListsTheCacheAndEveryHandlerConvergeToTheServerState(
            @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 10_000) Integer> ops) {
        converge(ops, ReflectorOptions.defaults());
    }

    @Property(tries = 60)
    void withListTheCacheAndEveryHandlerConvergeToTheServerState(
            @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 10_000) Integer> ops) {
        converge(ops, ReflectorOptions.defaults().withStreamingList(false));
    }

    private static void converge(List<Integer> ops, ReflectorOptions reflectorOptions) {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        FakePodServer server = new FakePodServer(time);
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server).scheduler(time)
                .reflectorOptions(reflectorOptions.withBackoff(Backoff.defaults().withJitter(0)))
                .build();
        List<Recorder> recorders = new ArrayList<>();
        List<Disposable> subscriptions = new ArrayList<>();
        SubscriberOptions[] policies = {SubscriberOptions.defaults(), SubscriberOptions.defaults().unbounded(),
                SubscriberOptions.defaults().withResyncPeriod(Duration.ofSeconds(1))};
        for (SubscriberOptions options : policies) {
            Recorder recorder = new Recorder();
            recorders.add(recorder);
            subscriptions.add(informer.notifications(options).subscribe(recorder));
        }
        Disposable stop = informer.start();

        int step = 0;
        for (int op : ops) {
            String name = "p" + (op / 10 % KEYS);
            String value = Integer.toString(step++);
            switch (op % 10) {
                case 0, 1, 2 -> server.put("ns", name, value);
                case 3 -> server.delete("ns/" + name);
                case 4 -> server.put("ns", name, value, true);
                case 5 -> server.delete("ns/" + name, true);
                case 6 -> server.breakWatches();
                case 7 -> time.advanceTimeBy(Duration.ofMillis(op % 2000));
                case 8 -> {
                    Recorder late = new Recorder();
                    recorders.add(late);
                    subscriptions.add(informer.notifications(policies[op % 3]).subscribe(late));
                }
                default -> server.bookmark();
            }
        }
        // Whatever the watch missed, a relist finds.
        server.breakWatches();
        time.advanceTimeBy(Duration.ofMinutes(5));

        Map<String, String> expected = Recorder.values(server.snapshot());
        Map<String, V1Pod> cached = new HashMap<>();
        informer.indexer().list().forEach(p -> cached.put(ObjectKeys.keyOf(p), p));
        assertThat(Recorder.values(cached)).isEqualTo(expected);
        for (Recorder recorder : recorders) {
            assertThat(recorder.view()).isEqualTo(expected);
        }
        assertThat(informer.lastSyncResourceVersion()).isEqualTo(server.currentResourceVersion());
        subscriptions.forEach(Disposable::dispose);
        stop.dispose();
        time.dispose();
    }
}
