package io.reactiveinformer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data flows one way: each package of the library may use the packages before it in
 * {@link #LAYERS} and none after it, and no two packages depend on each other through any path.
 */
class ArchitectureTest {

    /**
     * Bottom first. {@code cache} needs only the Kubernetes model, so it sits low enough for {@code watch} to key
     * objects with {@link io.reactiveinformer.cache.ObjectKeys}. workqueue lives in reactive-workqueue (see its
     * {@code WorkQueueArchitectureTest}), controller and leaderelection in reactive-controller.
     */
    static final List<String> LAYERS = List.of("api", "cache", "codec", "config", "client", "watch", "informer");

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.reactiveinformer");
    }

    @Test
    void noPackageDependsOnALaterLayer() {
        for (int i = 0; i < LAYERS.size() - 1; i++) {
            String[] later = LAYERS.subList(i + 1, LAYERS.size()).stream()
                    .map(p -> "io.reactiveinformer." + p + "..")
                    .toArray(String[]::new);
            noClasses().that().resideInAPackage("io.reactiveinformer." + LAYERS.get(i) + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(later)
                    .because("the data flows " + String.join(" -> ", LAYERS))
                    .check(main);
        }
    }

    @Test
    void everyMainPackageIsALayer() {
        noClasses().should().resideOutsideOfPackages(LAYERS.stream()
                        .map(p -> "io.reactiveinformer." + p + "..").toArray(String[]::new))
                .because("a new package needs a place in the layering")
                .check(main);
    }

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.reactiveinformer.(*)..").should().beFreeOfCycles().check(main);
    }
}
