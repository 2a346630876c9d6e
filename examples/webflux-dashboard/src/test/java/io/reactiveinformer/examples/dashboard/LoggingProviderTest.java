package io.reactiveinformer.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.slf4j.spi.SLF4JServiceProvider;

/** The application chose slf4j-simple: no starter, ours included, brings a second SLF4J provider beside it. */
class LoggingProviderTest {

    @Test
    void theOnlySlf4jProviderIsTheApplicationsChoice() {
        assertThat(ServiceLoader.load(SLF4JServiceProvider.class).stream().map(p -> p.type().getName()))
                .containsExactly("org.slf4j.simple.SimpleServiceProvider");
    }
}
