/**
 * The HTTP client. {@link io.reactiveinformer.client.KubernetesClient} owns one connection pool and TLS
 * setup ({@code HttpTransport}, {@code OffloadingSslContext}) and hands out
 * {@link io.reactiveinformer.client.ResourceClient}s, one per resource, namespace and selectors, whose
 * requests {@code ResourceRequests} spells; {@link io.reactiveinformer.client.RawRequest} reaches any other
 * path.
 *
 * <p>Responses are decoded from byte chunks as they arrive, never from a whole body: a LIST by a
 * {@code ListDecoder} ({@code ObjectListDecoder} for JSON, items found by {@code ListItemScanner}, their bytes
 * gathered by {@code ObjectBytes}; {@code ProtobufListDecoder} for protobuf), its items bound on other threads by
 * {@code ParallelBinder}; one object by {@code ValueDecoder} (a protobuf one whole, it is small); a watch by a
 * {@code WatchStreamDecoder} ({@code WatchEventDecoder}, {@code ProtobufWatchEventDecoder}; {@code DecodedChunk}:
 * the events one buffer completed). Reads of the built-in kinds ask for protobuf or JSON and the response's
 * {@code Content-Type} picks the decoder ({@link io.reactiveinformer.config.Encoding}; {@code ResourceClient}
 * negotiates, {@code HttpTransport} remembers the resources a server refused protobuf for). A stream that
 * holds a connection gets its deadline from {@link io.reactiveinformer.client.Deadlines}.
 *
 * <p>Threading: a client and its handles are thread-safe; their publishers are cold, each subscription one
 * request, and signal on the connection's event loop (LIST items bound on a scheduler's workers).
 */
package io.reactiveinformer.client;
