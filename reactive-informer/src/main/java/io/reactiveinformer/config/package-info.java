/**
 * How to reach one API server: {@link io.reactiveinformer.config.ClientConfig} (where, how to trust it, who
 * we are), read from kubeconfig files as kubectl does ({@link io.reactiveinformer.config.Kubeconfig}) or
 * from a pod's service account ({@code InCluster}). {@link io.reactiveinformer.config.Credentials} says where
 * each request's token comes from: static, a token file re-read as it rotates ({@code TokenFileCredentials}),
 * or an exec plugin ({@link io.reactiveinformer.config.ExecCredentials}); tokens fetched by a blocking call are
 * cached until due for renewal ({@code CachedToken}). {@code Pem} reads keys and
 * certificates. {@link io.reactiveinformer.config.Encoding} says how the client reads objects (protobuf for the
 * built-in kinds, or JSON only). Failures are {@link io.reactiveinformer.config.ConfigException}.
 */
package io.reactiveinformer.config;
