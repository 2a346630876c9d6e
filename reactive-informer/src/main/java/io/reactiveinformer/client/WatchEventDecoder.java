package io.reactiveinformer.client;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Decodes a watch stream, {@code {"type":"ADDED","object":{...}}} objects one after another (the API
 * server separates them with newlines; any whitespace will do), from byte chunks split anywhere.
 *
 * <p>An {@code ERROR} event is thrown as the {@link KubernetesApiException} its {@code Status} describes
 * (a 410 one is {@link KubernetesApiException.Gone}). A malformed event, an unknown type, a missing
 * object, or an ADDED/MODIFIED/DELETED object without metadata throws a
 * {@link io.reactiveinformer.api.DecodeException} naming the position.
 *
 * <p>Not thread-safe; see {@link #feed}. Create one per stream with
 * {@code new WatchEventDecoder<>(json, type, source)}.
 *
 * @param <T> the object type
 */
final class WatchEventDecoder<T> extends JsonStreamDecoder {

    private static final String TYPE = "type";
    private static final String OBJECT = "object";

    private final ObjectReader objectReader;
    private final ObjectReader statusReader;
    private final Class<T> type;
    private final String source;

    private boolean inEvent;
    private String field;
    private String eventType;
    private TokenBuffer object;
    private Consumer<? super WatchEvent<T>> sink;

    WatchEventDecoder(KubernetesJson json, Class<T> type, String source) {
        super(json, source);
        this.objectReader = json.reader(type);
        this.statusReader = json.reader(V1Status.class);
        this.type = type;
        this.source = source;
    }

    /**
     * Feeds the next bytes; every event they complete is handed to {@code sink}, in order, on the
     * calling thread, before this returns.
     *
     * @throws io.reactiveinformer.api.DecodeException on malformed input
     * @throws KubernetesApiException                      on an ERROR event
     */
    void feed(ByteBuffer bytes, Consumer<? super WatchEvent<T>> sink) {
        this.sink = sink;
        try {
            feedBuffer(bytes);
        } finally {
            this.sink = null;
        }
    }

    /**
     * Marks the end of the stream.
     *
     * @throws io.reactiveinformer.api.DecodeException if it ended inside an event
     */
    void end() {
        endInput();
    }

    @Override
    void onToken(JsonParser parser, JsonToken token) {
        if (!inEvent) {
            if (token != JsonToken.START_OBJECT) {
                throw decodeError("expected a watch event object, found " + token, null);
            }
            inEvent = true;
            field = null;
            eventType = null;
            object = null;
            return;
        }
        if (token == JsonToken.PROPERTY_NAME) {
            field = parser.currentName();
        } else if (token == JsonToken.END_OBJECT) {
            inEvent = false;
            emit();
        } else if (TYPE.equals(field) && token == JsonToken.VALUE_STRING) {
            eventType = parser.getString();
        } else if (OBJECT.equals(field) && token == JsonToken.START_OBJECT) {
            captureValue(token);
        } else {
            skipValue(token);
        }
    }

    @Override
    void onCaptured(TokenBuffer value) {
        object = value;
    }

    @Override
    boolean atValueBoundary() {
        return !inEvent;
    }

    @Override
    String openStructure() {
        return eventType == null ? "a watch event" : "a " + eventType + " watch event";
    }

    private void emit() {
        if (eventType == null) {
            throw decodeError("watch event without a type", null);
        }
        if (object == null) {
            throw decodeError(eventType + " watch event without an object", null);
        }
        TokenBuffer value = object;
        object = null;
        if ("ERROR".equals(eventType)) {
            V1Status status = bind(statusReader, value, "the Status of an ERROR watch event");
            throw KubernetesApiException.of(source, statusCode(status), status, null);
        }
        WatchEvent.Type kind;
        try {
            kind = WatchEvent.Type.valueOf(eventType);
        } catch (IllegalArgumentException e) {
            throw decodeError("unknown watch event type \"" + eventType + "\"", null);
        }
        T decoded = bind(objectReader, value, eventType + " object as " + type.getSimpleName());
        if (kind != WatchEvent.Type.BOOKMARK && decoded instanceof KubernetesObject ko && ko.getMetadata() == null) {
            throw decodeError(eventType + " object has no metadata", null);
        }
        sink.accept(new WatchEvent<>(kind, decoded));
    }

    /** The Status code, or 410 for an expiry the server reported without a code, else 500. */
    private static int statusCode(V1Status status) {
        if (status.getCode() != null && status.getCode() > 0) {
            return status.getCode();
        }
        return "Expired".equals(status.getReason()) || "Gone".equals(status.getReason()) ? 410 : 500;
    }
}
