/**
 * JSON for Kubernetes objects, on Jackson 3. {@link io.reactiveinformer.codec.KubernetesJson} is the mapper
 * the client uses in both directions; {@link io.reactiveinformer.codec.KubernetesModule} makes any mapper read
 * and write the official (gson-annotated) models as the API server does: field names from their annotations
 * ({@code GsonModelIntrospector}), {@code IntOrString}, {@code Quantity} and timestamps in the server's forms
 * ({@code IntOrStringCodec}, {@code QuantityCodec}, {@code TimestampCodec}). Free-form values stay bytes until
 * read ({@link io.reactiveinformer.codec.LazyJsonMap}, {@code UntypedValueDeserializer}), and repeated short
 * strings share one instance ({@code StringValues}), which is what keeps a large cache small.
 *
 * <p>kube-apiserver's protobuf encoding of built-in kinds is decoded into the same models by
 * {@code ProtobufCodec} (objects and lists in their envelope) and {@link io.reactiveinformer.codec.ProtobufWatchFrames}
 * (watch streams), with decoders generated at build time from the vendored {@code .proto} files
 * ({@code ProtoDecoders}); {@link io.reactiveinformer.codec.KubernetesProtobuf} is what the client's streaming
 * decoders use of it.
 *
 * <p>Mappers and modules are thread-safe once built.
 */
package io.reactiveinformer.codec;
