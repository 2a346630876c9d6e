package io.reactiveinformer.codec;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.google.gson.annotations.SerializedName;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.PropertyName;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.AnnotatedClass;
import tools.jackson.databind.introspect.AnnotatedField;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.introspect.VisibilityChecker;

/**
 * Makes Jackson map gson-annotated classes (the official models) the way gson does: by their fields,
 * under their {@code @SerializedName} names. Their getters, fluent setters and static helpers
 * ({@code fromJson}, {@code validateJsonElement}) are invisible, so a getter named after a Java
 * keyword ({@code getContinue} for field {@code _continue}) cannot produce a second property.
 *
 * <p>The models initialise every list and map field to an empty collection, which makes "absent"
 * and "empty" indistinguishable; such fields are written only when non-empty, as the API server
 * does for its {@code omitempty} fields; other fields are written only when non-null, whatever the
 * mapper's default inclusion (an application's mapper may write nulls).
 */
final class GsonModelIntrospector extends NopAnnotationIntrospector {

    private static final long serialVersionUID = 1L;

    private static final VisibilityChecker FIELDS_ONLY = new VisibilityChecker(Visibility.ANY, Visibility.NONE,
            Visibility.NONE, Visibility.NONE, Visibility.NONE, Visibility.NONE);

    private static final JsonInclude.Value NON_EMPTY =
            JsonInclude.Value.construct(JsonInclude.Include.NON_EMPTY, JsonInclude.Include.ALWAYS);

    private static final JsonInclude.Value NON_NULL =
            JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.ALWAYS);

    private static final ClassValue<Boolean> GSON_MODEL = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (f.isAnnotationPresent(SerializedName.class)) {
                        return true;
                    }
                }
            }
            return false;
        }
    };

    static boolean isGsonModel(Class<?> type) {
        return GSON_MODEL.get(type);
    }

    @Override
    public VisibilityChecker findAutoDetectVisibility(MapperConfig<?> config, AnnotatedClass ac,
                                                      VisibilityChecker checker) {
        return isGsonModel(ac.getRawType()) ? FIELDS_ONLY : checker;
    }

    @Override
    public PropertyName findNameForSerialization(MapperConfig<?> config, Annotated a) {
        return serializedName(a);
    }

    @Override
    public PropertyName findNameForDeserialization(MapperConfig<?> config, Annotated a) {
        return serializedName(a);
    }

    @Override
    public List<PropertyName> findPropertyAliases(MapperConfig<?> config, Annotated a) {
        SerializedName name = a.getAnnotation(SerializedName.class);
        if (name == null || name.alternate().length == 0) {
            return null;
        }
        List<PropertyName> aliases = new ArrayList<>(name.alternate().length);
        for (String alternate : name.alternate()) {
            aliases.add(PropertyName.construct(alternate));
        }
        return aliases;
    }

    @Override
    public JsonInclude.Value findPropertyInclusion(MapperConfig<?> config, Annotated a) {
        if (a instanceof AnnotatedField field && isGsonModel(field.getDeclaringClass())) {
            Class<?> type = field.getRawType();
            if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)) {
                return NON_EMPTY;
            }
            return NON_NULL;
        }
        return JsonInclude.Value.empty();
    }

    private static PropertyName serializedName(Annotated a) {
        SerializedName name = a.getAnnotation(SerializedName.class);
        return name == null ? null : PropertyName.construct(name.value());
    }
}
