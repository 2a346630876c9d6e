package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.client.ListItemScanner.RawItem;
import io.reactiveinformer.codec.KubernetesProtobuf;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The protobuf {@link ListDecoder}: a LIST response in {@code application/vnd.kubernetes.protobuf} (the
 * {@code k8s\0} magic, then a {@code runtime.Unknown} whose {@code raw} field holds the list message: its
 * {@code ListMeta} as field 1, each item as a field 2), from byte chunks split anywhere.
 *
 * <p>{@link #feed} walks the wire format's tags and lengths only, and copies each item's message out as its own
 * bytes, so the connection's thread never decodes an object. Everything else (the envelope's type, the list's
 * metadata) is kept, a few hundred bytes that {@link #end} decodes. {@link #bind} decodes items with the
 * generated decoders ({@link KubernetesProtobuf#decodeItem}), each passed through {@code intern} at once.
 * A malformed input ends in a {@link DecodeException} naming the byte offset in the response.
 *
 * <p>Threading: as {@link ListDecoder} says: {@link #feed} and {@link #end} from one thread at a time,
 * {@link #bind} from any.
 *
 * @param <T> the item type
 */
final class ProtobufListDecoder<T> implements ListDecoder<T> {

    private static final byte[] MAGIC = {'k', '8', 's', 0};
    /** {@code runtime.Unknown}'s {@code raw} field, and the list message's {@code items}. */
    private static final int RAW = 2;
    private static final int ITEMS = 2;
    private static final int LENGTH_DELIMITED = 2;
    /** A varint of a tag or a length has at most 10 bytes; a longer one is garbage. */
    private static final int MAX_VARINT_SHIFT = 63;

    private enum State { MAGIC, TAG, LENGTH, VARINT_VALUE, SKIP, PAYLOAD }

    /** What the payload being read is. */
    private enum Payload { ITEM, KEPT }

    private final KubernetesProtobuf protobuf;
    private final Class<T> type;
    private final String source;
    private final UnaryOperator<T> intern;

    /** The envelope's fields but {@code raw}, as received. */
    private final ByteArrayOutputStream envelope = new ByteArrayOutputStream(64);
    /** The list message's fields but the items, as received. */
    private final ByteArrayOutputStream list = new ByteArrayOutputStream(64);

    private State state = State.MAGIC;
    private long offset;
    /** Where the list message ends in the response while inside it, else -1. */
    private long listEnd = -1;
    private long varint;
    private int shift;
    private int tag;
    private long toSkip;
    private Payload payload;
    private byte[] bytes;
    private int filled;
    private long payloadOffset;
    private List<RawItem> completed = new ArrayList<>();
    private int fed;

    ProtobufListDecoder(KubernetesProtobuf protobuf, Class<T> type, String source, UnaryOperator<T> intern) {
        this.protobuf = protobuf;
        this.type = type;
        this.source = source;
        this.intern = intern;
    }

    @Override
    public Batch feed(ByteBuffer in) {
        while (in.hasRemaining()) {
            switch (state) {
                case MAGIC -> {
                    byte b = in.get();
                    if (b != MAGIC[(int) offset]) {
                        throw error("no protobuf envelope (the k8s\\0 prefix)", offset);
                    }
                    offset++;
                    if (offset == MAGIC.length) {
                        state = State.TAG;
                    }
                }
                case TAG, LENGTH, VARINT_VALUE -> readVarint(in.get());
                case SKIP -> {
                    int n = (int) Math.min(toSkip, in.remaining());
                    in.position(in.position() + n);
                    offset += n;
                    toSkip -= n;
                    if (toSkip == 0) {
                        fieldDone();
                    }
                }
                case PAYLOAD -> {
                    int n = Math.min(bytes.length - filled, in.remaining());
                    in.get(bytes, filled, n);
                    filled += n;
                    offset += n;
                    if (filled == bytes.length) {
                        payloadDone();
                    }
                }
            }
        }
        List<RawItem> items = completed;
        completed = new ArrayList<>();
        Batch batch = new Batch(fed, items);
        fed += items.size();
        return batch;
    }

    private void readVarint(byte b) {
        if (shift > MAX_VARINT_SHIFT) {
            throw error("a varint of more than 10 bytes", offset);
        }
        varint |= (long) (b & 0x7f) << shift;
        shift += 7;
        offset++;
        if (b < 0) {
            return;
        }
        long value = varint;
        varint = 0;
        shift = 0;
        switch (state) {
            case TAG -> tag(value);
            case LENGTH -> length(value);
            default -> fieldDone(); // a varint field's value, skipped
        }
    }

    private void tag(long value) {
        tag = (int) value;
        int wireType = tag & 7;
        switch (wireType) {
            case 0 -> state = State.VARINT_VALUE;
            case 1 -> skip(8);
            case LENGTH_DELIMITED -> state = State.LENGTH;
            case 5 -> skip(4);
            default -> throw error("a field of wire type " + wireType, offset);
        }
    }

    private void length(long length) {
        long end = offset + length;
        if (length < 0 || listEnd >= 0 && end > listEnd) {
            throw error("a field of " + length + " bytes beyond the end of the list", offset);
        }
        int field = tag >>> 3;
        if (listEnd < 0 && field == RAW) {
            listEnd = end;
            fieldDone();
            return;
        }
        if (length > Integer.MAX_VALUE - 8) {
            throw error("a field of " + length + " bytes", offset);
        }
        payload = listEnd >= 0 && field == ITEMS ? Payload.ITEM : Payload.KEPT;
        bytes = new byte[(int) length];
        filled = 0;
        payloadOffset = offset;
        state = State.PAYLOAD;
        if (length == 0) {
            payloadDone();
        }
    }

    private void skip(long n) {
        toSkip = n;
        state = State.SKIP;
    }

    private void payloadDone() {
        if (payload == Payload.ITEM) {
            completed.add(new RawItem(bytes, payloadOffset));
        } else {
            ByteArrayOutputStream kept = listEnd >= 0 ? list : envelope;
            writeVarint(kept, tag);
            writeVarint(kept, bytes.length);
            kept.writeBytes(bytes);
        }
        bytes = null;
        fieldDone();
    }

    private void fieldDone() {
        state = State.TAG;
        if (offset == listEnd) {
            listEnd = -1;
        } else if (listEnd >= 0 && offset > listEnd) {
            throw error("a field beyond the end of the list", offset);
        }
    }

    @Override
    public List<T> bind(Batch batch) {
        List<T> bound = new ArrayList<>(batch.items().size());
        int index = batch.first();
        for (RawItem raw : batch.items()) {
            try {
                bound.add(intern.apply(protobuf.decodeItem(raw.bytes(), type, raw.offset())));
            } catch (DecodeException e) {
                throw new DecodeException(source + ": item " + index + ": " + e.getMessage(), e);
            }
            index++;
        }
        return bound;
    }

    @Override
    public ObjectList<T> end(List<T> items) {
        if (state == State.MAGIC) {
            throw error(offset == 0 ? "the response held no list" : "the response ended inside the k8s\\0 prefix",
                    offset);
        }
        if (state != State.TAG || listEnd >= 0) {
            throw error("the response ended inside a field", offset);
        }
        ByteArrayOutputStream whole = new ByteArrayOutputStream(MAGIC.length + envelope.size() + list.size() + 12);
        whole.writeBytes(MAGIC);
        whole.writeBytes(envelope.toByteArray());
        writeVarint(whole, RAW << 3 | LENGTH_DELIMITED);
        writeVarint(whole, list.size());
        whole.writeBytes(list.toByteArray());
        V1ListMeta meta;
        try {
            meta = protobuf.decodeListMeta(whole.toByteArray(), type);
        } catch (DecodeException e) {
            throw new DecodeException(source + ": " + e.getMessage(), e);
        }
        return new ObjectList<>(items, meta.getResourceVersion(), meta.getContinue(), meta.getRemainingItemCount(),
                meta.getShardInfo() == null ? null : meta.getShardInfo().getSelector());
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7fL) != 0) {
            out.write((int) (value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write((int) value);
    }

    private DecodeException error(String problem, long at) {
        return new DecodeException(source + ": malformed protobuf list: " + problem + " (at byte " + at + ")", null);
    }
}
