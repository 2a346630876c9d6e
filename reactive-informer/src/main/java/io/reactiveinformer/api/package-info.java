/**
 * The vocabulary every other package speaks, free of I/O: where a kind lives ({@link
 * io.reactiveinformer.api.ResourceType}), the options of a request ({@link io.reactiveinformer.api.ListOptions},
 * {@link io.reactiveinformer.api.WatchOptions}, {@link io.reactiveinformer.api.DeleteOptions},
 * {@link io.reactiveinformer.api.PatchType}), what a response carries ({@link io.reactiveinformer.api.ObjectList},
 * {@link io.reactiveinformer.api.WatchEvent}), objects without a generated model
 * ({@link io.reactiveinformer.api.DynamicObject}, {@link io.reactiveinformer.api.PartialObjectMetadata}), the
 * one ordering of resourceVersions ({@link io.reactiveinformer.api.ResourceVersions}), shard selection
 * ({@link io.reactiveinformer.api.ShardSelector}, {@link io.reactiveinformer.api.ShardRange}), and the errors,
 * all under {@link io.reactiveinformer.api.KubernetesClientException}: the server said no
 * ({@link io.reactiveinformer.api.KubernetesApiException}), no answer came
 * ({@link io.reactiveinformer.api.TransportException}), the bytes made no object
 * ({@link io.reactiveinformer.api.DecodeException}), or no credentials
 * ({@link io.reactiveinformer.api.AuthenticationException}).
 *
 * <p>Every type here is an immutable value or an exception: safe to share between threads.
 */
package io.reactiveinformer.api;
