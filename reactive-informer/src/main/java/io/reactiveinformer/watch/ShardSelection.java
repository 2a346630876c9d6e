package io.reactiveinformer.watch;

import io.reactiveinformer.api.ShardSelector;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The shard selector a {@link Reflector} lists and watches with, changeable while it runs: each
 * {@link #select} ends the list or watch in flight and relists with the new selector, whose
 * {@link ReflectorEvent.Listed} then replaces the consumer's content (the objects outside the new selector
 * leave it). Every selection has a number, increasing from 1, which the lists made with it carry
 * ({@link ReflectorEvent.Listed#selection()}), so a consumer knows when the content it holds is the new
 * selection's. {@link ShardSelector#none()} lists nothing: the reflector emits an empty list and waits for
 * the next selection.
 *
 * <p>Thread-safe: {@link #select} may be called from any thread; the reflector sees the change on its next
 * signal.
 */
public final class ShardSelection {

    /** A selector and its number. */
    record Selected(ShardSelector selector, long number) {
    }

    private final Sinks.Many<Selected> changes = Sinks.many().replay().latest();
    private volatile Selected current;

    private ShardSelection(ShardSelector initial) {
        current = new Selected(initial, 1);
        changes.tryEmitNext(current);
    }

    /** Starting with {@code initial}, {@code null} for every object (no sharding). */
    public static ShardSelection of(ShardSelector initial) {
        return new ShardSelection(initial);
    }

    /** The selector in force; {@code null} for every object. */
    public ShardSelector current() {
        return current.selector();
    }

    /**
     * From now on only the objects of {@code selector} ({@code null}: every object), through a relist; a
     * selector equal to the current one changes nothing.
     *
     * @return the selection's number: the first list that carries it (or a later number) holds the new selection
     */
    public synchronized long select(ShardSelector selector) {
        Selected now = current;
        if (Objects.equals(now.selector(), selector)) {
            return now.number();
        }
        Selected next = new Selected(selector, now.number() + 1);
        current = next;
        // serialized by this method's monitor: the emission cannot fail for concurrent use
        changes.tryEmitNext(next);
        return next.number();
    }

    Selected selected() {
        return current;
    }

    /** Completes when a selection newer than {@code number} is made (at once if one was). */
    Mono<Void> changedAfter(long number) {
        return changes.asFlux().filter(s -> s.number() > number).next().then();
    }
}
