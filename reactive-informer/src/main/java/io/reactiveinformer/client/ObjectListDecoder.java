package io.reactiveinformer.client;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.client.ListItemScanner.RawItem;
import io.reactiveinformer.codec.KubernetesJson;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;

/**
 * Decodes a LIST response ({@code {"kind":"PodList","metadata":{...},"items":[...]}}) from byte chunks
 * split anywhere, in two steps that may run on different threads:
 * <ol>
 *   <li>{@link #feed} (one thread at a time, in order: the connection's) finds each item's bytes with a
 *   {@link ListItemScanner} and hands them out as a {@link Batch};</li>
 *   <li>{@link #bind} (any thread, batches concurrently) binds a batch's items with Jackson's blocking
 *   parser over those few kilobytes, the fast path, with no token copying;</li>
 * </ol>
 * and {@link #end} assembles the page from the bound batches in feed order. So a list of tens of
 * megabytes never exists as bytes or as a tree, only as the objects it holds plus the items in flight.
 * Each bound item goes through the {@code intern} function at once, so an item it swaps for an equal
 * instance held elsewhere (a relist's unchanged object, for the cache's) is garbage before the page ends.
 *
 * <p>The JSON {@link ListDecoder}.
 *
 * @param <T> the item type
 */
final class ObjectListDecoder<T> implements ListDecoder<T> {

    private final KubernetesJson json;
    private final ObjectReader itemReader;
    /** The envelope's readers bind a value inside the list object, so tokens follow it. */
    private final ObjectReader metaReader;
    private final ObjectReader envelopeItemReader;
    private final Class<T> type;
    private final String source;
    private final ListItemScanner scanner;
    private final UnaryOperator<T> intern;
    private int fed;

    ObjectListDecoder(KubernetesJson json, Class<T> type, String source) {
        this(json, type, source, UnaryOperator.identity());
    }

    /** @param intern applied to each item as soon as it is bound, on the binding thread (see {@link #bind}) */
    ObjectListDecoder(KubernetesJson json, Class<T> type, String source, UnaryOperator<T> intern) {
        this.json = json;
        this.intern = intern;
        this.itemReader = json.reader(type);
        this.metaReader = json.reader(V1ListMeta.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.envelopeItemReader = itemReader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.type = type;
        this.source = source;
        this.scanner = new ListItemScanner(source);
    }

    /**
     * Feeds the next bytes and returns the items they completed, unbound. Call from one thread at a time.
     *
     * @throws DecodeException on a malformed {@code items} array
     */
    @Override
    public Batch feed(ByteBuffer bytes) {
        List<RawItem> items = scanner.feed(bytes);
        Batch batch = new Batch(fed, items);
        fed += items.size();
        return batch;
    }

    /**
     * Binds a batch's items, in order, each passed through {@code intern}. Thread-safe: batches may be bound
     * concurrently, and so {@code intern} is called concurrently.
     *
     * @throws DecodeException if an item is malformed or does not fit the type
     */
    @Override
    public List<T> bind(Batch batch) {
        List<T> bound = new ArrayList<>(batch.items().size());
        int index = batch.first();
        for (RawItem raw : batch.items()) {
            try {
                bound.add(intern.apply(itemReader.readValue(raw.bytes())));
            } catch (JacksonException e) {
                throw error("cannot decode item " + index + " as " + type.getSimpleName() + ": " + e.getOriginalMessage(),
                        e, raw.offset() + byteOffset(e.getLocation()));
            }
            index++;
        }
        return bound;
    }

    /**
     * Ends the input and returns the page of {@code items} (the bound batches, in feed order).
     *
     * @throws DecodeException if the input ended early, held no list object, or is malformed outside the items
     */
    @Override
    public ObjectList<T> end(List<T> items) {
        byte[] envelope = scanner.end(fed);
        V1ListMeta meta = null;
        List<T> all = items;
        try (JsonParser p = json.mapper().createParser(envelope)) {
            JsonToken token = p.nextToken();
            if (token == null) {
                throw error("the response held no list object", null, -1);
            }
            if (token != JsonToken.START_OBJECT) {
                throw error("expected a list object, found " + token, null, -1);
            }
            while ((token = p.nextToken()) == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                token = p.nextToken();
                if ("metadata".equals(field) && token == JsonToken.START_OBJECT) {
                    meta = metaReader.readValue(p);
                } else if ("items".equals(field) && token == JsonToken.START_ARRAY) {
                    all = itemsInEnvelope(p, all);
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw error("unexpected content after the list object", null, -1);
            }
        } catch (JacksonException e) {
            throw error("malformed JSON: " + e.getOriginalMessage(), e, -1);
        }
        if (meta == null) {
            meta = new V1ListMeta();
        }
        return new ObjectList<>(all, meta.getResourceVersion(), meta.getContinue(), meta.getRemainingItemCount(),
                meta.getShardInfo() == null ? null : meta.getShardInfo().getSelector());
    }

    /** Items the scanner left in the envelope (an {@code "items"} key it did not recognise, e.g. escaped). */
    private List<T> itemsInEnvelope(JsonParser p, List<T> items) {
        List<T> all = new ArrayList<>(items);
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token != JsonToken.START_OBJECT) {
                throw error("expected an object in \"items\", found " + token, null, -1);
            }
            all.add(intern.apply(envelopeItemReader.readValue(p)));
        }
        return all;
    }

    private DecodeException error(String problem, Throwable cause, long at) {
        return new DecodeException(source + ": " + problem + (at >= 0 ? " (at byte " + at + ")" : ""), cause);
    }

    private static long byteOffset(TokenStreamLocation location) {
        return location == null || location == TokenStreamLocation.NA ? 0 : Math.max(0, location.getByteOffset());
    }
}
