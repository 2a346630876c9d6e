package io.reactiveinformer.client;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a watch stream, {@code {"type":"ADDED","object":{...}}} objects one after another (the API
 * server separates them with newlines; any whitespace will do), from byte chunks split anywhere.
 * {@link ObjectBytes} finds each event's bytes; the event is then bound on Jackson's blocking path,
 * its object straight into the model with no intermediate tree or token copy.
 *
 * <p>An {@code ERROR} event is thrown as the {@link KubernetesApiException} its {@code Status} describes
 * (a 410 one is {@link KubernetesApiException.Gone}). A malformed event, an unknown type, a missing
 * object, or an ADDED/MODIFIED/DELETED object without metadata throws a
 * {@link io.reactiveinformer.api.DecodeException} naming the position.
 *
 * <p>The JSON {@link WatchStreamDecoder}. Not thread-safe; see {@link #feed}. Create one per stream with
 * {@code new WatchEventDecoder<>(json, type, source)}.
 *
 * @param <T> the object type
 */
final class WatchEventDecoder<T> implements WatchStreamDecoder<T> {

    private final KubernetesJson json;
    /** Both bind a value inside the event object, so tokens follow it. */
    private final ObjectReader objectReader;
    private final ObjectReader statusReader;
    private final Class<T> type;
    private final String source;
    private final ObjectBytes event = new ObjectBytes();

    private long offset;
    private int line = 1;
    private int eventLine;

    WatchEventDecoder(KubernetesJson json, Class<T> type, String source) {
        this.json = json;
        this.objectReader = json.reader(type).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.statusReader = json.reader(V1Status.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.type = type;
        this.source = source;
    }

    /**
     * Feeds the next bytes; every event they complete is handed to {@code sink}, in order, on the
     * calling thread, before this returns. The buffer is consumed before this returns (up to an error).
     *
     * @throws io.reactiveinformer.api.DecodeException on malformed input
     * @throws KubernetesApiException                      on an ERROR event
     */
    @Override
    public void feed(ByteBuffer bytes, Consumer<? super WatchEvent<T>> sink) {
        while (bytes.hasRemaining()) {
            if (event.open()) {
                int before = bytes.position();
                boolean complete = event.scan(bytes);
                offset += bytes.position() - before;
                if (complete) {
                    sink.accept(event.read(this::bind));
                }
                continue;
            }
            byte b = bytes.get();
            if (b == '{') {
                event.start(offset);
                eventLine = line;
            } else if (b == '\n') {
                line++;
            } else if (b != ' ' && b != '\r' && b != '\t') {
                throw error("malformed JSON: expected a watch event object, found "
                        + (b >= 0x20 && b < 0x7f ? "'" + (char) b + "'" : String.format("byte 0x%02x", b & 0xff)),
                        null, offset, line, -1);
            }
            offset++;
        }
    }

    /**
     * Marks the end of the stream.
     *
     * @throws io.reactiveinformer.api.DecodeException if it ended inside an event
     */
    @Override
    public void end() {
        if (event.open()) {
            throw error("input ended inside a watch event", null, offset, -1, -1);
        }
    }

    private WatchEvent<T> bind(byte[] bytes, int length) {
        String eventType = null;
        boolean hasObject = false;
        JsonNode objectBeforeType = null;
        T object = null;
        V1Status status = null;
        try (JsonParser p = json.mapper().createParser(bytes, 0, length)) {
            p.nextToken(); // the opening brace ObjectBytes started with
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken token = p.nextToken();
                if ("type".equals(field) && token == JsonToken.VALUE_STRING) {
                    eventType = p.getString();
                } else if ("object".equals(field) && token == JsonToken.START_OBJECT) {
                    hasObject = true;
                    if (eventType == null) {
                        objectBeforeType = p.readValueAsTree(); // no server writes it so; bound below
                    } else if ("ERROR".equals(eventType)) {
                        status = statusReader.readValue(p);
                    } else {
                        object = objectReader.readValue(p);
                    }
                } else {
                    p.skipChildren();
                }
            }
            if (objectBeforeType != null && eventType != null) {
                if ("ERROR".equals(eventType)) {
                    status = statusReader.readValue(objectBeforeType);
                } else {
                    object = objectReader.readValue(objectBeforeType);
                }
            }
        } catch (StreamReadException e) {
            throw positioned("malformed JSON: " + e.getOriginalMessage(), e);
        } catch (JacksonException e) {
            throw positioned("cannot decode " + eventType + " object as " + type.getSimpleName() + ": "
                    + e.getOriginalMessage(), e);
        }
        if (eventType == null) {
            throw error("watch event without a type", null, event.offset(), eventLine, -1);
        }
        if (!hasObject) {
            throw error(eventType + " watch event without an object", null, event.offset(), eventLine, -1);
        }
        if (status != null) {
            throw KubernetesApiException.of(source, statusCode(status), status, null);
        }
        WatchEvent.Type kind;
        try {
            kind = WatchEvent.Type.valueOf(eventType);
        } catch (IllegalArgumentException e) {
            throw error("unknown watch event type \"" + eventType + "\"", null, event.offset(), eventLine, -1);
        }
        if (kind != WatchEvent.Type.BOOKMARK && unnamed(object)) {
            throw error(eventType + " object has no metadata.name", null, event.offset(), eventLine, -1);
        }
        return new WatchEvent<>(kind, object);
    }

    /** An error inside the current event, positioned in the stream (events start lines, as the server writes them). */
    private DecodeException positioned(String problem, JacksonException e) {
        TokenStreamLocation at = e.getLocation();
        if (at == null || at == TokenStreamLocation.NA) {
            return error(problem, e, event.offset(), eventLine, -1);
        }
        return error(problem, e, event.offset() + Math.max(0, at.getByteOffset()), eventLine + at.getLineNr() - 1,
                at.getColumnNr());
    }

    private DecodeException error(String problem, Throwable cause, long at, int atLine, int column) {
        StringBuilder b = new StringBuilder(source).append(": ").append(problem).append(" (at byte ").append(at);
        if (atLine > 0) {
            b.append(", line ").append(atLine);
            if (column > 0) {
                b.append(", column ").append(column);
            }
        }
        return new DecodeException(b.append(')').toString(), cause);
    }

    /**
     * Whether {@code object} cannot be keyed: it has no metadata, or no name (a protobuf object always has its
     * metadata message, empty when the server sent none), which no server sends in a change.
     */
    static boolean unnamed(Object object) {
        return object instanceof KubernetesObject ko
                && (ko.getMetadata() == null || ko.getMetadata().getName() == null || ko.getMetadata().getName().isEmpty());
    }

    /** The Status code, or 410 for an expiry the server reported without a code, else 500. */
    static int statusCode(V1Status status) {
        if (status.getCode() != null && status.getCode() > 0) {
            return status.getCode();
        }
        return "Expired".equals(status.getReason()) || "Gone".equals(status.getReason()) ? 410 : 500;
    }
}
