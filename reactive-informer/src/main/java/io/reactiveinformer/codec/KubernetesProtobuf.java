package io.reactiveinformer.codec;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import java.io.IOException;

/**
 * kube-apiserver's protobuf encoding ({@value #MEDIA_TYPE}) of the built-in kinds, decoded into the official
 * models: the pieces the client's streaming decoders put together. An object or a {@code Status} in its
 * envelope ({@link #decode}); a list's items one by one ({@link #decodeItem}), its {@code metadata} apart
 * ({@link #decodeListMeta}), so that a list is never whole in memory as bytes; a watch stream's frames
 * ({@link #watchFrames}). Every decode equals the JSON decode of the same object (see {@code ProtobufCodec}).
 *
 * <p>Threading: thread-safe; decodes on the calling thread without blocking. A {@link ProtobufWatchFrames} is
 * one stream's and is used by one thread at a time.
 */
public final class KubernetesProtobuf {

    /** The media type of an object or a list. */
    public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";
    /** The media type of a watch stream. */
    public static final String WATCH_MEDIA_TYPE = MEDIA_TYPE + ";stream=watch";

    /** A list message's {@code metadata} ({@code ListMeta}) and {@code items} fields. */
    private static final int LIST_META = 1 << 3 | 2;

    private final ProtobufCodec codec;

    private KubernetesProtobuf(KubernetesJson json) {
        this.codec = new ProtobufCodec(json);
    }

    /**
     * A decoder with a string table of its own; {@code json} decodes the free-form values embedded as JSON
     * ({@code RawExtension}).
     */
    public static KubernetesProtobuf of(KubernetesJson json) {
        return new KubernetesProtobuf(json);
    }

    /**
     * Whether {@code type} is a built-in kind (or list) with a generated decoder; {@code PartialObjectMetadata}
     * is one, whatever kind it describes.
     */
    public static boolean supports(Class<?> type) {
        return ProtobufCodec.supports(type);
    }

    /**
     * The enveloped object in the {@code length} bytes at {@code offset}: a {@code type}, or a {@link V1Status}
     * when the envelope holds a {@code Status} (the body of an error response).
     *
     * @throws DecodeException naming the byte offset, also when the envelope holds another kind
     */
    public Object decode(byte[] bytes, int offset, int length, Class<?> type) {
        return codec.decodeObject(bytes, offset, length, type);
    }

    /**
     * One item of a list: the bare message of a {@code type} (no envelope, no {@code apiVersion} or
     * {@code kind}, as a list's items are in JSON too).
     *
     * @param at where {@code bytes} begin in the response, for the error message
     * @throws DecodeException naming the byte offset in the response
     */
    public <T> T decodeItem(byte[] bytes, Class<T> type, long at) {
        ProtoType<?> proto = ProtoDecoders.type(type);
        if (proto == null) {
            throw new IllegalArgumentException("no protobuf decoder for " + type.getName());
        }
        ProtoInput in = new ProtoInput(bytes, 0, bytes.length, codec);
        try {
            return type.cast(proto.reader().read(in, ProtoInput.NO_LIMIT));
        } catch (IOException | RuntimeException e) {
            throw new DecodeException("decoding " + type.getSimpleName() + " from protobuf: malformed item: "
                    + e.getMessage() + " (at byte " + (at + in.position()) + ")", e);
        }
    }

    /**
     * The {@code metadata} of an enveloped list of {@code itemType}s whose items were taken out (they are
     * decoded apart, with {@link #decodeItem}); an empty {@code ListMeta} if it has none.
     *
     * @throws DecodeException if the envelope does not hold a list of {@code itemType}, or is malformed
     */
    public V1ListMeta decodeListMeta(byte[] envelope, Class<?> itemType) {
        ProtoType<?> item = ProtoDecoders.type(itemType);
        if (item == null) {
            throw new IllegalArgumentException("no protobuf decoder for " + itemType.getName());
        }
        String source = "decoding a " + itemType.getSimpleName() + " list from protobuf: ";
        ProtobufEnvelope list;
        try {
            list = ProtobufEnvelope.read(envelope, 0, envelope.length);
        } catch (ProtobufDecodeError e) {
            throw new DecodeException(source + e.problem(), e.getCause());
        }
        if (!list.kind().equals(item.kind() + "List")) {
            throw new DecodeException(source + "the envelope holds a " + list.apiVersion() + " " + list.kind()
                    + ", not a " + item.kind() + "List", null);
        }
        ProtoInput in = new ProtoInput(envelope, list.rawOffset(), list.rawLength(), codec);
        try {
            V1ListMeta meta = null;
            for (int tag = in.tag(); tag != 0; tag = in.tag()) {
                if (tag == LIST_META) {
                    meta = ProtoMetaV1.readListMeta(in, in.begin());
                } else {
                    in.skip(tag);
                }
            }
            return meta == null ? new V1ListMeta() : meta;
        } catch (IOException | RuntimeException e) {
            throw new DecodeException(source + "malformed list metadata: " + e.getMessage(), e);
        }
    }

    /** A decoder of one watch stream of {@code type}. */
    public ProtobufWatchFrames watchFrames(Class<?> type) {
        if (!supports(type)) {
            throw new IllegalArgumentException("no protobuf decoder for " + type.getName());
        }
        return new ProtobufWatchFrames(codec, type);
    }
}
