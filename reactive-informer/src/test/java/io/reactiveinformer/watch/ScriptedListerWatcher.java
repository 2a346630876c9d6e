package io.reactiveinformer.watch;

import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * An in-memory {@link ListerWatcher} that answers each call with the next scripted response, and
 * records every call (its options and the scheduler time it was subscribed at). A call beyond the
 * script hangs forever, like a server that never answers, so a test sees exactly the calls it scripted.
 */
final class ScriptedListerWatcher<T> implements ListerWatcher<T> {

    /** One request: what was asked, and when (scheduler time, ms). */
    record Call<O>(O options, long atMillis) {
    }

    private final Scheduler clock;
    private final Queue<Mono<ObjectList<T>>> lists = new ConcurrentLinkedQueue<>();
    private final Queue<Flux<WatchEvent<T>>> watches = new ConcurrentLinkedQueue<>();
    private final List<Call<ListOptions>> listCalls = new CopyOnWriteArrayList<>();
    private final List<Call<WatchOptions>> watchCalls = new CopyOnWriteArrayList<>();
    private final AtomicInteger cancelledLists = new AtomicInteger();
    private final AtomicInteger cancelledWatches = new AtomicInteger();
    private final AtomicLong watchDemand = new AtomicLong();

    ScriptedListerWatcher(Scheduler clock) {
        this.clock = clock;
    }

    ScriptedListerWatcher<T> listReturns(ObjectList<T> page) {
        lists.add(Mono.just(page));
        return this;
    }

    ScriptedListerWatcher<T> listFails(Throwable error) {
        lists.add(Mono.error(error));
        return this;
    }

    ScriptedListerWatcher<T> listHangs() {
        lists.add(Mono.never());
        return this;
    }

    ScriptedListerWatcher<T> watchReturns(Flux<WatchEvent<T>> stream) {
        watches.add(stream);
        return this;
    }

    ScriptedListerWatcher<T> watchFails(Throwable error) {
        watches.add(Flux.error(error));
        return this;
    }

    @Override
    public Mono<ObjectList<T>> list(ListOptions options) {
        return Mono.defer(() -> {
            listCalls.add(new Call<>(options, clock.now(TimeUnit.MILLISECONDS)));
            Mono<ObjectList<T>> next = lists.poll();
            return next == null ? Mono.<ObjectList<T>>never() : next;
        }).doOnCancel(cancelledLists::incrementAndGet);
    }

    @Override
    public Flux<WatchEvent<T>> watch(WatchOptions options) {
        return Flux.defer(() -> {
            watchCalls.add(new Call<>(options, clock.now(TimeUnit.MILLISECONDS)));
            Flux<WatchEvent<T>> next = watches.poll();
            return next == null ? Flux.<WatchEvent<T>>never() : next;
        }).doOnRequest(watchDemand::addAndGet).doOnCancel(cancelledWatches::incrementAndGet);
    }

    List<Call<ListOptions>> listCalls() {
        return listCalls;
    }

    List<Call<WatchOptions>> watchCalls() {
        return watchCalls;
    }

    ListOptions list(int index) {
        return listCalls.get(index).options();
    }

    WatchOptions watch(int index) {
        return watchCalls.get(index).options();
    }

    int cancelledLists() {
        return cancelledLists.get();
    }

    int cancelledWatches() {
        return cancelledWatches.get();
    }

    /** The sum of all demand the reflector signalled to watch streams. */
    long watchDemand() {
        return watchDemand.get();
    }
}
