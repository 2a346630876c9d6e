package io.reactiveinformer.codec;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.client.DecodeException;
import java.io.ByteArrayOutputStream;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The JSON mapping of Kubernetes objects, for both directions: the client decodes with it, a
 * (simulated) API server encodes watch events and lists with it.
 *
 * <p>Handles the official models (gson {@code @SerializedName} names honoured, mapped by field),
 * user POJOs for custom resources (plain Jackson), and {@link DynamicObject}. Unknown fields are
 * ignored (newer servers add fields); nulls are not written; {@code IntOrString}, {@code Quantity},
 * timestamps ({@code Time} with whole seconds, {@code MicroTime} with six fraction digits) and
 * byte arrays (base64) are written as the API server writes them.
 *
 * <p>Immutable and thread-safe. The decoders it creates are not: one per stream.
 */
public final class KubernetesJson {

    private static final KubernetesJson DEFAULT = new KubernetesJson(mapperBuilder().build());

    private final JsonMapper mapper;
    private final ClassValue<ObjectReader> readers = new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
            return mapper.readerFor(type);
        }
    };

    private KubernetesJson(JsonMapper mapper) {
        this.mapper = mapper;
        prepare(V1Status.class);
        prepare(V1ListMeta.class);
    }

    /**
     * Builds the mapping of {@code type} now. Jackson builds a mapping the first time a type is read,
     * under a lock; doing it ahead keeps that lock off the event loops that decode responses.
     * The client calls this when a resource handle is created.
     */
    public void prepare(Class<?> type) {
        readers.get(type);
    }

    ObjectReader reader(Class<?> type) {
        return readers.get(type);
    }

    /** The shared default instance. */
    public static KubernetesJson defaults() {
        return DEFAULT;
    }

    /** An instance on a mapper built from {@link #mapperBuilder()}, e.g. with more modules. */
    public static KubernetesJson of(JsonMapper mapper) {
        return new KubernetesJson(mapper);
    }

    /**
     * A mapper builder with the Kubernetes mapping ({@link KubernetesModule}) and the decoding tuning
     * configured; add modules and build.
     */
    public static JsonMapper.Builder mapperBuilder() {
        SimpleModule decoding = new SimpleModule("reactive-informer-decoding")
                .addDeserializer(Object.class, new UntypedValueDeserializer())
                .addDeserializer(String.class, new StringValues.Deserializer());
        return JsonMapper.builder()
                .addModule(new KubernetesModule())
                .addModule(decoding)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .disable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                .changeDefaultPropertyInclusion(
                        incl -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.ALWAYS));
    }

    /** The configured mapper, for anything not covered here. */
    public JsonMapper mapper() {
        return mapper;
    }

    /** A decoder for one watch stream; {@code source} (e.g. the request line) prefixes its errors. */
    public <T> WatchEventDecoder<T> watchEventDecoder(Class<T> type, String source) {
        return new WatchEventDecoder<>(this, type, source);
    }

    /** A decoder for one LIST response. */
    public <T> ObjectListDecoder<T> listDecoder(Class<T> type, String source) {
        return new ObjectListDecoder<>(this, type, source);
    }

    /** A decoder for one single-object response. */
    public <T> ValueDecoder<T> valueDecoder(Class<T> type, String source) {
        return new ValueDecoder<>(this, type, source);
    }

    /**
     * Decodes a complete JSON document.
     *
     * @throws DecodeException naming the position of the problem
     */
    public <T> T decode(byte[] json, Class<T> type) {
        ValueDecoder<T> decoder = valueDecoder(type, "decoding " + type.getSimpleName());
        decoder.feed(java.nio.ByteBuffer.wrap(json));
        return decoder.end();
    }

    /** Encodes an object (a model, a POJO, a {@link DynamicObject}, a {@code V1Status}, ...). */
    public byte[] encode(Object value) {
        return mapper.writeValueAsBytes(value);
    }

    /**
     * Encodes one watch event line as the API server writes it: {@code {"type":...,"object":...}\n}.
     *
     * @param type {@code ADDED}, {@code MODIFIED}, {@code DELETED}, {@code BOOKMARK} or {@code ERROR}
     *             (with a {@code V1Status} object)
     */
    public byte[] encodeWatchEvent(String type, Object object) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator gen = mapper.createGenerator(out)) {
            gen.writeStartObject();
            gen.writeStringProperty("type", type);
            gen.writeName("object");
            gen.writePOJO(object);
            gen.writeEndObject();
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot encode a " + type + " event", e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    /**
     * Encodes a LIST response page.
     *
     * @param apiVersion e.g. {@code v1}
     * @param kind       e.g. {@code PodList}
     * @param metadata   resourceVersion, continue token, remaining item count
     * @param items      the page's objects
     */
    public byte[] encodeList(String apiVersion, String kind, V1ListMeta metadata, List<?> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024 + items.size() * 4096);
        try (JsonGenerator gen = mapper.createGenerator(out)) {
            gen.writeStartObject();
            gen.writeStringProperty("kind", kind);
            gen.writeStringProperty("apiVersion", apiVersion);
            gen.writeName("metadata");
            gen.writePOJO(metadata == null ? new V1ListMeta() : metadata);
            gen.writeArrayPropertyStart("items");
            for (Object item : items) {
                gen.writePOJO(item);
            }
            gen.writeEndArray();
            gen.writeEndObject();
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot encode a " + kind, e);
        }
        return out.toByteArray();
    }
}
