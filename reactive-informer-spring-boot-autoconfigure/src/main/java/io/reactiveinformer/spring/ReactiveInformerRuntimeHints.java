package io.reactiveinformer.spring;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * What a native image of an application on the starter needs beyond what Spring's AOT processing finds itself:
 * Jackson binds the official models by their declared fields (the codec maps them the way gson does) and makes
 * them with their no-argument constructors; {@code PartialObjectMetadata} and {@code DynamicObject} are bound as
 * beans; {@code ResourceType} reads its table of built-in kinds from the jar; the actuator writes
 * {@link InformerView}s as JSON.
 *
 * <p>The models are named by their class files, found when the hints are made (at build time), not loaded.
 */
final class ReactiveInformerRuntimeHints implements RuntimeHintsRegistrar {

    static final String MODELS = "io/kubernetes/client/openapi/models/";
    static final String CUSTOM = "io/kubernetes/client/custom/";
    static final String BUILT_IN_KINDS = "io/reactiveinformer/api/built-in-kinds.txt";

    private static final MemberCategory[] BOUND = {MemberCategory.ACCESS_DECLARED_FIELDS,
            MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.INVOKE_PUBLIC_METHODS};

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        PathMatchingResourcePatternResolver resolver = new PathMatchingResourcePatternResolver(classLoader);
        for (String pkg : new String[] {MODELS, CUSTOM}) {
            try {
                for (Resource classFile : resolver.getResources("classpath*:" + pkg + "*.class")) {
                    String file = classFile.getFilename();
                    if (file != null) {
                        String name = (pkg + file.substring(0, file.length() - ".class".length())).replace('/', '.');
                        hints.reflection().registerType(TypeReference.of(name), BOUND);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        hints.reflection().registerType(PartialObjectMetadata.class, BOUND);
        hints.reflection().registerType(DynamicObject.class, BOUND);
        hints.reflection().registerType(InformerView.class, BOUND);
        hints.reflection().registerType(InformerView.SubscriberView.class, BOUND);
        hints.resources().registerPattern(BUILT_IN_KINDS);
    }
}
