package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Keeps a consumer in step with one resource on the API server: lists it (or streams the list), then
 * watches it from the listed resourceVersion, and starts over whenever that fails, for as long as the
 * consumer listens. client-go's {@code Reflector} as a {@link Flux}; it does not know about caches: an
 * informer reduces its {@link ReflectorEvent}s into its store.
 *
 * <h2>Recovery</h2>
 * <ul>
 *   <li>A watch the server closes normally is re-opened at once from the last resourceVersion; one that
 *       closed within a second without any event is suspicious and leads to a relist.</li>
 *   <li>410 Gone (the resourceVersion is too old) and a watch stream that cannot be decoded lead to a relist;
 *       429, 5xx, transport failures and an idle watch to a re-watch from the last resourceVersion;
 *       401, 403, 404 and other refusals to a relist.</li>
 *   <li>Every failure is reported as a {@link ReflectorEvent.Failed} and retried after the {@link Backoff}
 *       delay, or after the server's {@code Retry-After} (at most {@link Backoff#cap()}) when it sent a
 *       longer one: a {@code Retry-After} of 0 (or an HTTP date in the past, by a server whose clock is
 *       behind) never makes the retry immediate. The one exception: a list whose resourceVersion the server
 *       no longer has is retried at once at {@code ""}, once.</li>
 *   <li>A relist asks for {@code "0"} (any cached state) the first time, then for the last synced
 *       resourceVersion, and for {@code ""} (a consistent read) after the server said that version is
 *       unavailable, until a list succeeds.</li>
 * </ul>
 *
 * <h2>Threading and backpressure</h2>
 * Events are emitted on the thread that delivered the {@link ListerWatcher}'s signal (for the HTTP client,
 * a Netty event loop) or, after a delay or an idle timeout, on a worker of the {@link Scheduler} given to
 * the builder, one at a time. The flux honours demand: a watch event is requested from the
 * {@link ListerWatcher} only when the consumer has requested one, so a slow consumer slows the watch
 * (and, through the HTTP client, the TCP stream) instead of filling a buffer. The reflector holds only
 * the list being gathered (all pages, or the initial events of a streaming list) until it emits it as
 * one {@link ReflectorEvent.Listed}. The idle timer runs regardless of demand: a consumer that requests
 * nothing for longer than {@link ReflectorOptions#idleTimeout()} causes a re-watch from the last delivered
 * resourceVersion, which loses nothing.
 *
 * <h2>Memory of a relist</h2>
 * A consumer that keeps a store holds most of a relist's objects already: those the server did not change
 * since (same key, same resourceVersion). With an {@linkplain Builder#interner interner} that answers the
 * consumer's own instance for them, each listed object is swapped for it as soon as it is decoded (per item
 * of a LIST through {@link ListerWatcher#of(io.reactiveinformer.client.ResourceClient)}, per page through
 * other lister-watchers, per initial event of a streaming list), so the gathered list holds the changed
 * objects only as new copies: a relist then costs the store plus what changed, not twice the store.
 *
 * @param <T> the object type
 */
public final class Reflector<T extends KubernetesObject> {

    private final String name;
    private final ListerWatcher<T> listerWatcher;
    private final ReflectorOptions options;
    private final Scheduler scheduler;
    private final DoubleSupplier random;
    private final UnaryOperator<T> interner;
    /** Null: each subscription's own, fixed at {@link ReflectorOptions#shardSelector()}. */
    private final ShardSelection selection;

    private Reflector(Builder<T> builder) {
        this.name = builder.name;
        this.listerWatcher = builder.listerWatcher;
        this.options = builder.options;
        this.scheduler = builder.scheduler;
        this.random = builder.random;
        this.interner = builder.interner;
        this.selection = builder.selection;
    }

    /** A reflector over the given list and watch calls; name, options, scheduler and randomness have defaults. */
    public static <T extends KubernetesObject> Builder<T> builder(ListerWatcher<T> listerWatcher) {
        return new Builder<>(listerWatcher);
    }

    /**
     * The events of the resource, starting with a list. Cold: each subscription runs its own list and
     * watch with its own state (resourceVersion, backoff, streaming-list fallback). Never completes and
     * never signals an error: failures arrive as {@link ReflectorEvent.Failed}, a {@link ListerWatcher}
     * signalling something else than a client exception included; only a JVM {@link Error} ends it.
     * Cancelling closes the list or watch in flight and any pending delay.
     */
    public Flux<ReflectorEvent<T>> events() {
        return Flux.defer(() -> new ReflectorRun<>(name, listerWatcher, options,
                selection != null ? selection : ShardSelection.of(options.shardSelector()), scheduler, random,
                interner).events());
    }

    /** The name this reflector logs under. */
    public String name() {
        return name;
    }

    public ReflectorOptions options() {
        return options;
    }

    /** Configures a {@link Reflector}. Not thread-safe. */
    public static final class Builder<T extends KubernetesObject> {

        private final ListerWatcher<T> listerWatcher;
        private String name = "reflector";
        private ReflectorOptions options = ReflectorOptions.defaults();
        private Scheduler scheduler = Schedulers.parallel();
        private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();
        private UnaryOperator<T> interner;
        private ShardSelection selection;

        private Builder(ListerWatcher<T> listerWatcher) {
            this.listerWatcher = Objects.requireNonNull(listerWatcher, "listerWatcher");
        }

        /** What the log lines say this reflector is, e.g. {@code "v1/pods"}. Default {@code "reflector"}. */
        public Builder<T> name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Default {@link ReflectorOptions#defaults()}. */
        public Builder<T> options(ReflectorOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /** Runs every delay and timeout, and is the clock. Default {@link Schedulers#parallel()}. */
        public Builder<T> scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * The source of backoff jitter and watch timeouts: uniform in {@code [0, 1)}. Called from any
         * thread that emits. Default {@link ThreadLocalRandom}.
         */
        public Builder<T> random(DoubleSupplier random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * Passes every listed object (of a LIST or of a streaming list's initial events, not of a watch) through
         * {@code interner} as soon as it is decoded, and lists what it answers: it may answer an instance it holds
         * already of the same state (same key and resourceVersion) so that the decoded copy is garbage at once,
         * else the object it was given (see "Memory of a relist" above). Called from the threads that decode (the
         * connection's, or the binding workers', concurrently), before the objects are filtered by a shard selector
         * the server ignores; it must not block and must not throw. Not used for a list after the server's store
         * went back in time (a list older than what was synced, or a rollback the reflector probed): a
         * resourceVersion may then name two states, and a list that reused instances across such a rollback is
         * discarded and made again without. Default: none.
         */
        public Builder<T> interner(UnaryOperator<T> interner) {
            this.interner = Objects.requireNonNull(interner, "interner");
            return this;
        }

        /**
         * Lists and watches with {@code selection}'s selector, relisting whenever it changes; its initial
         * selector replaces {@link ReflectorOptions#shardSelector()}. Default: that option's, fixed.
         */
        public Builder<T> shardSelection(ShardSelection selection) {
            this.selection = Objects.requireNonNull(selection, "selection");
            return this;
        }

        public Reflector<T> build() {
            return new Reflector<>(this);
        }
    }
}
