package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The startup check of the Jackson and Reactor versions: what it accepts, and what it says when it refuses. */
class DependencyVersionsTest {

    @Test
    void theVersionsThisModuleIsBuiltWithAndBoot41sAreAccepted() {
        assertThatCode(DependencyVersions::check).doesNotThrowAnyException();
        assertThatCode(() -> DependencyVersions.check("3.1.7", "3.1.7", "3.8.8")).doesNotThrowAnyException();
        assertThatCode(() -> DependencyVersions.check("3.2.4", "3.3.0", "3.9.0.RELEASE")).doesNotThrowAnyException();
        assertThatCode(() -> DependencyVersions.check(null, null, null)).as("repackaged jars: unknown, not refused")
                .doesNotThrowAnyException();
    }

    @Test
    void anOlderJacksonFailsTheStartSayingWhichJarAndWhatToChange() {
        assertThatThrownBy(() -> DependencyVersions.check("3.0.4", "3.0.4", "3.8.7"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tools.jackson.core:jackson-databind 3.0.4 is on the class path; it needs 3.1")
                .hasMessageContaining("tools.jackson.core:jackson-core 3.0.4")
                .hasMessageContaining("reactive-informer-bom before Spring Boot's BOM")
                .hasMessageContaining("<jackson-bom.version>");
        assertThatThrownBy(() -> DependencyVersions.check("4.0.0", "4.0.0", "3.8.7"))
                .hasMessageContaining("jackson-databind 4.0.0");
    }

    @Test
    void aJacksonCoreOlderThanItsDatabindIsRefused() {
        assertThatThrownBy(() -> DependencyVersions.check("3.2.4", "3.1.7", "3.8.7"))
                .hasMessageContaining("jackson-core 3.1.7 is older than jackson-databind 3.2.4");
    }

    @Test
    void anOlderReactorIsRefused() {
        assertThatThrownBy(() -> DependencyVersions.check("3.2.4", "3.2.4", "3.7.9"))
                .hasMessageContaining("io.projectreactor:reactor-core 3.7.9 is on the class path; it needs 3.8")
                .hasMessageContaining("<reactor-bom.version>");
    }
}
