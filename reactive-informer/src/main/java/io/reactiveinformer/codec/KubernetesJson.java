package io.reactiveinformer.codec;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.DynamicObject;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * The JSON mapping of Kubernetes objects, for both directions: the client decodes responses and
 * encodes request bodies with it (the test kit's simulated API server does the reverse).
 *
 * <p>Handles the official models (gson {@code @SerializedName} names honoured, mapped by field),
 * user POJOs for custom resources (plain Jackson), and {@link DynamicObject}. Unknown fields are
 * ignored (newer servers add fields); nulls are not written; {@code IntOrString}, {@code Quantity},
 * timestamps ({@code Time} with whole seconds, {@code MicroTime} with six fraction digits) and
 * byte arrays (base64) are written as the API server writes them. A {@code managedFields} entry's
 * {@code fieldsV1} is kept as its JSON bytes and becomes a {@code Map} the first time it is read (a
 * sixth less heap per cached pod of the benchmarks' corpus; encoding writes the bytes back unread).
 *
 * <p>Immutable and thread-safe.
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

    /**
     * The reader of {@code type}, built once per instance: the client's streaming decoders bind with it.
     */
    public ObjectReader reader(Class<?> type) {
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
        StringValues strings = new StringValues();
        SimpleModule decoding = new SimpleModule("reactive-informer-decoding")
                .addDeserializer(Object.class, new UntypedValueDeserializer(strings))
                .addDeserializer(String.class, new StringValues.Deserializer(strings));
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

    /**
     * Decodes a complete JSON document.
     *
     * @throws DecodeException naming the position of the problem
     */
    public <T> T decode(byte[] json, Class<T> type) {
        try {
            return reader(type).readValue(json);
        } catch (JacksonException e) {
            StringBuilder b = new StringBuilder("decoding ").append(type.getSimpleName()).append(": ")
                    .append(e instanceof StreamReadException ? "malformed JSON: " : "cannot decode " + type.getSimpleName()
                            + ": ")
                    .append(e.getOriginalMessage());
            TokenStreamLocation at = e.getLocation();
            if (at != null && at != TokenStreamLocation.NA) {
                b.append(" (at byte ").append(at.getByteOffset()).append(", line ").append(at.getLineNr())
                        .append(", column ").append(at.getColumnNr()).append(')');
            }
            throw new DecodeException(b.toString(), e);
        }
    }

    /** Encodes an object (a model, a POJO, a {@link DynamicObject}, a {@code V1Status}, ...). */
    public byte[] encode(Object value) {
        return mapper.writeValueAsBytes(value);
    }
}
