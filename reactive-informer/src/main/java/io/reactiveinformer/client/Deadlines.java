package io.reactiveinformer.client;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/** Deadlines on streams that hold a connection (a watch): the one place that fails them in time. */
public final class Deadlines {

    private Deadlines() {
    }

    /**
     * {@code source}, ended with {@code error} as soon as {@code trigger} emits a value: {@code source} is
     * cancelled first (which releases its connection), then the error follows. If {@code source} ends first,
     * the trigger is cancelled and nothing changes.
     *
     * <p>Why not {@code source.takeUntilOther(trigger.then(Mono.error(e)))}: when the other publisher
     * <em>fails</em>, Reactor's {@code takeUntilOther} relays the error without cancelling the main source
     * (reactor-core 3.8), so the connection would stay open behind an error already delivered. A value from
     * the trigger does cancel it, so the trigger's value ends the source, a flag records it, and the error is
     * appended after.
     *
     * @param trigger emits when the deadline has passed (e.g. {@code Mono.delay} on a replaceable scheduler)
     * @param error   the failure to signal, made when the deadline fires
     */
    public static <T> Flux<T> failWhen(Flux<T> source, Publisher<?> trigger, Supplier<? extends Throwable> error) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(error, "error");
        return Flux.defer(() -> {
            AtomicBoolean fired = new AtomicBoolean();
            return source.takeUntilOther(Flux.from(trigger).doOnNext(ignored -> fired.set(true)))
                    .concatWith(Flux.defer(() -> fired.get() ? Flux.<T>error(error.get()) : Flux.<T>empty()));
        });
    }
}
