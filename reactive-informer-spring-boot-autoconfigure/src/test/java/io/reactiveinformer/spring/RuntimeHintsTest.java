package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

/**
 * The hints a native image needs, as Spring's AOT processing (what {@code spring-boot:process-aot} runs) collects
 * them from a context with the auto-configuration.
 */
class RuntimeHintsTest {

    @Test
    void aotProcessingOfTheAutoConfigurationCollectsTheModelsCodecsAndStarterHints() {
        RuntimeHints hints;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(ReactiveInformerAutoConfiguration.class);
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get("com.example", "App")),
                    new InMemoryGeneratedFiles());
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            hints = generation.getRuntimeHints();
        }

        for (Class<?> bound : new Class<?>[] {V1Pod.class, V1ObjectMeta.class, IntOrString.class,
                PartialObjectMetadata.class, DynamicObject.class, InformerView.class, InformerView.SubscriberView.class}) {
            assertThat(RuntimeHintsPredicates.reflection().onType(bound).withMemberCategories(
                    MemberCategory.ACCESS_DECLARED_FIELDS, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS))
                    .as(bound.getName()).accepts(hints);
        }
        assertThat(hints.reflection().typeHints().count()).as("every official model, not a handful")
                .isGreaterThan(500);
        assertThat(RuntimeHintsPredicates.resource().forResource(ReactiveInformerRuntimeHints.BUILT_IN_KINDS))
                .accepts(hints);
    }
}
