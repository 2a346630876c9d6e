package io.reactiveinformer.codec;

import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import java.io.IOException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes kube-apiserver's protobuf encoding ({@code application/vnd.kubernetes.protobuf}) of built-in kinds
 * straight into the official models, with the decoders generated at build time from the vendored
 * {@code .proto} files ({@code ProtoDecoders} and the {@code Proto*} classes it names; see
 * {@code src/build/ProtoDecoderGenerator.java}). The result equals what {@link KubernetesJson} decodes from
 * the JSON of the same object: the same zero values left out, null for a list or map that JSON always writes
 * and the wire has none of (kube-apiserver's JSON says {@code null} for it), the same timestamp precision,
 * {@code fieldsV1} kept as its JSON bytes, strings made canonical in a table of its own ({@link StringValues}).
 * {@code ProtobufJsonEquivalenceTest} holds this over objects of every covered kind made by Kubernetes' Go code.
 *
 * <p>The client reaches it through {@link KubernetesProtobuf}.
 *
 * <p>Threading: thread-safe, like a mapper; decodes on the calling thread without blocking.
 */
final class ProtobufCodec {

    final StringValues strings = new StringValues();
    final QuantityCodec.Parsed quantities = new QuantityCodec.Parsed();
    final UntypedValueDeserializer fieldsV1 = UntypedValueDeserializer.forFieldsV1(strings);
    private final ObjectReader untyped;

    ProtobufCodec(KubernetesJson json) {
        this.untyped = json.reader(Object.class);
    }

    /** Whether the generated decoders cover {@code type}. */
    static boolean supports(Class<?> type) {
        return ProtoDecoders.type(type) != null;
    }

    /**
     * Decodes a response body: an object or a list of {@code type} in its envelope.
     *
     * @throws DecodeException naming the byte offset of the problem, also when the body holds another kind
     */
    <T> T decode(byte[] body, Class<T> type) {
        Object decoded = decodeObject(body, 0, body.length, type);
        if (!type.isInstance(decoded)) {
            throw new DecodeException("decoding " + type.getSimpleName() + " from protobuf: the body holds a "
                    + ((V1Status) decoded).getKind() + ", not a " + ProtoDecoders.type(type).kind() + " (at byte 0)", null);
        }
        return type.cast(decoded);
    }

    /**
     * The enveloped object in the {@code length} bytes at {@code offset}: a {@code type}, or a {@link V1Status}
     * when the envelope says {@code Status} (what the server sends instead of the object on an error).
     *
     * @throws DecodeException naming the byte offset in {@code bytes}
     */
    Object decodeObject(byte[] bytes, int offset, int length, Class<?> type) {
        try {
            return readEnveloped(bytes, offset, length, type);
        } catch (ProtobufDecodeError e) {
            throw new DecodeException("decoding " + type.getSimpleName() + " from protobuf: " + e.problem()
                    + " (at byte " + e.offset() + ")", e.getCause());
        }
    }

    /** {@link #decodeObject} for the watch frames, which name the offset in the stream themselves. */
    Object readEnveloped(byte[] bytes, int offset, int length, Class<?> type) {
        ProtoType<?> expected = ProtoDecoders.type(type);
        if (expected == null) {
            throw new IllegalArgumentException("no protobuf decoder for " + type.getName());
        }
        ProtobufEnvelope envelope = ProtobufEnvelope.read(bytes, offset, length);
        if (!envelope.contentEncoding().isEmpty()) {
            throw new ProtobufDecodeError("content encoding " + envelope.contentEncoding() + " is not supported",
                    offset, null);
        }
        ProtoType<?> actual = envelope.kind().equals(expected.kind()) ? expected
                : envelope.kind().equals("Status") ? ProtoDecoders.type(V1Status.class) : null;
        if (actual == null) {
            throw new ProtobufDecodeError("the envelope holds a " + envelope.apiVersion() + " " + envelope.kind()
                    + ", not a " + expected.kind(), offset, null);
        }
        return read(actual, envelope, bytes);
    }

    private <T> T read(ProtoType<T> type, ProtobufEnvelope envelope, byte[] bytes) {
        ProtoInput in = new ProtoInput(bytes, envelope.rawOffset(), envelope.rawLength(), this);
        try {
            T object = type.reader().read(in, ProtoInput.NO_LIMIT);
            type.typeMeta().set(object, envelope.apiVersion(), envelope.kind());
            return object;
        } catch (IOException | RuntimeException e) {
            throw new ProtobufDecodeError("malformed " + envelope.kind() + ": " + e.getMessage(), in.position(), e);
        }
    }

    /** A free-form JSON value ({@code RawExtension}), as the JSON path decodes an {@code Object} property. */
    Object untyped(byte[] json) {
        try {
            return untyped.readValue(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("an embedded object that is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
