/**
 * The informer's cache and its read side, free of Reactor and of I/O: it needs only the Kubernetes model, so
 * every layer above may key objects with {@link io.reactiveinformer.cache.ObjectKeys}.
 *
 * <ul>
 *   <li>Read: {@link io.reactiveinformer.cache.Indexer} (objects by key and by named index),
 *       {@link io.reactiveinformer.cache.Lister} and {@link io.reactiveinformer.cache.NamespaceLister} (typed
 *       queries), {@link io.reactiveinformer.cache.LabelSelector} (local label filtering).</li>
 *   <li>Write: {@link io.reactiveinformer.cache.ConcurrentIndexer}, which an informer alone writes (one writer,
 *       any number of lock-free readers, a relist swapped in one step).</li>
 *   <li>Indices: {@link io.reactiveinformer.cache.IndexFunction} and its failures
 *       ({@link io.reactiveinformer.cache.IndexFailureListener}); {@code Index} is one index's state.</li>
 * </ul>
 */
package io.reactiveinformer.cache;
