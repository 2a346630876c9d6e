package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Decodes a LIST response ({@code {"kind":"PodList","metadata":{...},"items":[...]}}) from byte chunks
 * split anywhere. Each item is bound as soon as its last byte is in, so a list of tens of megabytes
 * never exists as bytes or as a tree, only as the objects it holds.
 *
 * <p>Not thread-safe: feed it from one thread at a time. Create one per response with
 * {@code new ObjectListDecoder<>(json, type, source)}.
 *
 * @param <T> the item type
 */
final class ObjectListDecoder<T> extends JsonStreamDecoder {

    private enum State { BEFORE, IN_LIST, IN_ITEMS, DONE }

    private final ObjectReader itemReader;
    private final ObjectReader metaReader;
    private final Class<T> type;
    private final List<T> items = new ArrayList<>();

    private State state = State.BEFORE;
    private String field;
    private V1ListMeta metadata;

    ObjectListDecoder(KubernetesJson json, Class<T> type, String source) {
        super(json, source);
        this.itemReader = json.reader(type);
        this.metaReader = json.reader(V1ListMeta.class);
        this.type = type;
    }

    /**
     * Feeds the next bytes, binding every item they complete.
     *
     * @throws io.reactiveinformer.api.DecodeException on malformed input
     */
    void feed(ByteBuffer bytes) {
        feedBuffer(bytes);
    }

    /**
     * Ends the input and returns the page.
     *
     * @throws io.reactiveinformer.api.DecodeException if the input ended early or held no list
     */
    ObjectList<T> end() {
        endInput();
        if (state != State.DONE) {
            throw decodeError("the response held no list object", null);
        }
        V1ListMeta meta = metadata == null ? new V1ListMeta() : metadata;
        return new ObjectList<>(items, meta.getResourceVersion(), meta.getContinue(), meta.getRemainingItemCount());
    }

    @Override
    void onToken(JsonParser parser, JsonToken token) {
        switch (state) {
            case BEFORE -> {
                if (token != JsonToken.START_OBJECT) {
                    throw decodeError("expected a list object, found " + token, null);
                }
                state = State.IN_LIST;
            }
            case IN_LIST -> {
                if (token == JsonToken.PROPERTY_NAME) {
                    field = parser.currentName();
                } else if (token == JsonToken.END_OBJECT) {
                    state = State.DONE;
                } else if ("items".equals(field) && token == JsonToken.START_ARRAY) {
                    state = State.IN_ITEMS;
                } else if ("metadata".equals(field) && token == JsonToken.START_OBJECT) {
                    captureValue(token);
                } else {
                    skipValue(token);
                }
            }
            case IN_ITEMS -> {
                if (token == JsonToken.END_ARRAY) {
                    state = State.IN_LIST;
                    field = null;
                } else if (token == JsonToken.START_OBJECT) {
                    captureValue(token);
                } else {
                    throw decodeError("expected an object in \"items\", found " + token, null);
                }
            }
            case DONE -> throw decodeError("unexpected content after the list object: " + token, null);
        }
    }

    @Override
    void onCaptured(TokenBuffer value) {
        if (state == State.IN_ITEMS) {
            items.add(bind(itemReader, value, "item " + items.size() + " as " + type.getSimpleName()));
        } else {
            metadata = bind(metaReader, value, "the list metadata");
        }
    }

    @Override
    boolean atValueBoundary() {
        return state == State.BEFORE || state == State.DONE;
    }

    @Override
    String openStructure() {
        return state == State.IN_ITEMS ? "item " + items.size() + " of the list" : "the list object";
    }
}
