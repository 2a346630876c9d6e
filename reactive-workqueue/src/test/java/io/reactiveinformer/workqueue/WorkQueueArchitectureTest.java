package io.reactiveinformer.workqueue;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The work queue is the layer after the informer and knows nothing of Kubernetes: it may use the JDK,
 * Reactor, SLF4J and (optionally) Micrometer only, so it can move to an artifact without the client.
 */
class WorkQueueArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.reactiveinformer");
    }

    @Test
    void workQueueUsesNoKubernetesCode() {
        classes().that().resideInAPackage("io.reactiveinformer.workqueue..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.reactiveinformer.workqueue..", "java..",
                        "reactor..", "org.reactivestreams..", "org.slf4j..", "io.micrometer..")
                .because("the work queue is generic: no client, informer, controller or Kubernetes model")
                .check(main);
    }

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.reactiveinformer.(*)..").should().beFreeOfCycles().check(main);
    }
}
