/**
 * Shared informers: one list/watch per resource, an indexed cache, and any number of handlers, each a
 * subscription to a {@code Flux<Notification<T>>} with its own buffer.
 *
 * <h2>Map</h2>
 * <table>
 *   <caption>The package's parts</caption>
 *   <tr><th>part</th><th>types</th></tr>
 *   <tr><td>API</td><td>{@link io.reactiveinformer.informer.SharedIndexInformer},
 *       {@link io.reactiveinformer.informer.SharedInformerFactory}, {@link io.reactiveinformer.informer.InformerSpec},
 *       {@link io.reactiveinformer.informer.HandlerRegistration}, {@link io.reactiveinformer.informer.SubscriberOptions},
 *       {@link io.reactiveinformer.informer.BufferPolicy}, {@link io.reactiveinformer.informer.Notification},
 *       {@link io.reactiveinformer.informer.InformerHealth}, {@link io.reactiveinformer.informer.UserCodeError},
 *       {@link io.reactiveinformer.informer.InformerMetrics} and its Micrometer binding, the Jackson
 *       {@link io.reactiveinformer.informer.NotificationModule}</td></tr>
 *   <tr><td>FIFO</td><td>{@code DeltaFifo} (the concurrency shell: operation queue, drain loop),
 *       {@code KeyedDeltaQueue} and {@code PendingDeltas} (the keyed rules), {@code Delta}, {@code DeltaType},
 *       {@code FifoEntry}</td></tr>
 *   <tr><td>apply</td><td>{@code ApplyLoop} (the cache's single writer, between entries the admission of
 *       joining handlers), {@code DeltaApplier} (one entry to the cache and its notifications)</td></tr>
 *   <tr><td>fan-out</td><td>{@code SharedProcessor} (the handlers, joins and leaves), {@code Handler} (one
 *       subscribed handler's state), {@code HandlerSubscriptions} (a subscription becomes a handler),
 *       {@code SubscriberBuffer} and {@code PendingNotifications} (a handler's buffer and drain task),
 *       {@code ResyncSchedule}, {@code DeliveryScheduler}</td></tr>
 *   <tr><td>state</td><td>{@code InformerState} (lifecycle, sync, health), {@code ReflectorFeed}
 *       (reflector events into the FIFO), {@code UserCode} (containment of user code failures)</td></tr>
 * </table>
 *
 * <h2>Which thread runs what</h2>
 * The one place that says where each piece of user code runs; the classes' own Javadoc says how.
 * <table>
 *   <caption>Threads of user code and library work</caption>
 *   <tr><th>code</th><th>thread</th><th>what it may delay</th></tr>
 *   <tr><td>{@code notifications().subscribe(...)}, {@code register(...).notifications()}</td>
 *       <td>the subscribing thread (often a network event loop): O(1) work, no cache read, no lock the
 *       apply loop holds</td><td>nothing</td></tr>
 *   <tr><td>a handler (the subscriber's {@code onNext})</td><td>its drain task on the delivery scheduler
 *       ({@link io.reactiveinformer.informer.SharedIndexInformer.Builder#deliveryScheduler}); a
 *       {@link io.reactiveinformer.informer.SubscriberOptions#blocking() blocking} one on the blocking
 *       scheduler</td><td>itself; others only while every delivery thread is busy, by one call</td></tr>
 *   <tr><td>the initial state of a new handler (the cache as adds)</td><td>a snapshot taken by the apply
 *       loop between two entries, turned into notifications by the handler's own drain task as it requests
 *       them</td><td>the apply loop by one list copy per batch of joiners</td></tr>
 *   <tr><td>transform ({@link io.reactiveinformer.informer.InformerSpec#transform()})</td><td>the thread
 *       that delivers the watch event or list (a network event loop, or a worker of the informer's
 *       scheduler after a backoff)</td><td>that connection: keep it cheap</td></tr>
 *   <tr><td>index functions</td><td>the apply loop, on the delivery scheduler (and, for an index added
 *       later, the thread that adds it)</td><td>the informer's cache updates</td></tr>
 *   <tr><td>{@link io.reactiveinformer.informer.InformerMetrics} hooks</td><td>the reflector's thread
 *       ({@code event}, {@code relisted}, {@code restarted}), the subscribing thread
 *       ({@code subscriberAdded}), the apply loop or reflector thread ({@code userCodeFailed}); gauges on
 *       the registry's reader</td><td>those threads: record, don't compute</td></tr>
 *   <tr><td>observers of {@code healthChanges()}, {@code userCodeErrors()}, {@code hasSynced()},
 *       {@code HandlerRegistration.hasSynced()}</td><td>the blocking scheduler (or, when only
 *       {@link io.reactiveinformer.informer.SharedIndexInformer.Builder#scheduler} was set, that one), each
 *       from its own hand-off: the latest health, up to 1,024 user-code errors</td><td>only themselves</td></tr>
 *   <tr><td>what follows {@code storeReached(rv)}</td><td>the same scheduler as those observers, handed off by
 *       the apply loop that advanced the version</td><td>only itself</td></tr>
 *   <tr><td>resync checks, backoff, timeouts</td><td>the informer's scheduler (the clock)</td><td>-</td></tr>
 * </table>
 * Controllers ({@code io.reactiveinformer.controller}) run key mappers on the handler's drain task and
 * reconcilers on their own workers; their package documentation says so.
 *
 * <h2>Owned threads, loud failures</h2>
 * A scheduler that rejects the informer's work (disposed, saturated) stops the informer with that cause
 * ({@link io.reactiveinformer.informer.InformerHealth#stopCause()}) and ends each subscriber with the
 * rejection; nothing is dropped silently. The default delivery pool is shared by every informer in the
 * JVM and its threads are daemons.
 */
package io.reactiveinformer.informer;
