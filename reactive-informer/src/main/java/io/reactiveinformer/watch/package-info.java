/**
 * The reflector (client-go's {@code tools/cache.Reflector}): keeps a consumer in step with one resource by
 * listing and watching it, as a {@code Flux} of {@link io.reactiveinformer.watch.ReflectorEvent}s.
 *
 * <ul>
 *   <li>API: {@link io.reactiveinformer.watch.Reflector}, {@link io.reactiveinformer.watch.ReflectorOptions},
 *       {@link io.reactiveinformer.watch.ListerWatcher} (the two calls it makes; {@code ClientListerWatcher}
 *       over a {@code ResourceClient}), {@link io.reactiveinformer.watch.Backoff},
 *       {@link io.reactiveinformer.watch.ReflectorException}.</li>
 *   <li>One subscription: {@code ReflectorRun} (the list/watch state machine), deciding with
 *       {@code ResourceVersionPolicy} (which version to list from, pages), {@code FailurePolicy} (what follows a
 *       failure) and {@code BackoffTimer}; lists by {@code ListPager} or a streaming list ({@code InitialEvents});
 *       guarded by {@code IdleWatchGuard} (a silent watch) and {@code StoreRollbackDetector} (a server store that
 *       went back in time); {@code ShardFilter} keeps a sharded reflector to its shard.</li>
 * </ul>
 *
 * <p>Threading: a run's state is confined to its signals, which follow one another; timers run on the
 * reflector's scheduler, which a test replaces with a virtual-time one.
 */
package io.reactiveinformer.watch;
