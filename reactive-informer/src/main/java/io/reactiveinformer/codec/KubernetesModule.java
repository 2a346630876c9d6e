package io.reactiveinformer.codec;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import java.time.OffsetDateTime;
import tools.jackson.databind.module.SimpleModule;

/**
 * The Jackson 3 module that maps the official Kubernetes models as the API server writes them, for any
 * {@code JsonMapper} (an application's, Spring Boot's): gson {@code @SerializedName} names and fields
 * only, {@code IntOrString} as a number or a string, {@code Quantity} as its canonical string,
 * {@code OffsetDateTime} as RFC 3339 ({@code Time} with whole seconds, {@code MicroTime} with six
 * fraction digits), and in the models no {@code null} fields and no empty lists or maps. Classes
 * other than the models keep the mapper's own settings, except {@code OffsetDateTime}.
 *
 * <pre>{@code
 * JsonMapper mapper = JsonMapper.builder().addModule(new KubernetesModule()).build();
 * }</pre>
 *
 * <p>{@link KubernetesJson#mapperBuilder()} registers it, plus decoding-only tuning (canonical short
 * strings, compact untyped maps) and lenient features that an application's mapper need not share.
 * Stateless and thread-safe.
 */
public final class KubernetesModule extends SimpleModule {

    private static final long serialVersionUID = 1L;

    public KubernetesModule() {
        super("reactive-informer-kubernetes");
        addSerializer(IntOrString.class, new IntOrStringCodec.Serializer());
        addDeserializer(IntOrString.class, new IntOrStringCodec.Deserializer());
        addSerializer(Quantity.class, new QuantityCodec.Serializer());
        addDeserializer(Quantity.class, new QuantityCodec.Deserializer());
        addSerializer(OffsetDateTime.class, new TimestampCodec.Serializer());
        addDeserializer(OffsetDateTime.class, new TimestampCodec.Deserializer());
        addSerializer(LazyJsonMap.class, new LazyJsonMap.Serializer());
    }

    @Override
    public void setupModule(SetupContext context) {
        super.setupModule(context);
        context.insertAnnotationIntrospector(new GsonModelIntrospector());
    }
}
