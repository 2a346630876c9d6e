package io.reactiveinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class LabelSelectorTest {

    private static final Map<String, String> LABELS = Map.of("app", "web", "tier", "front", "env", "prod");

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "'';true",
            "app=web;true",
            "app==web;true",
            "app=db;false",
            "app!=db;true",
            "missing!=x;true",
            "app!=web;false",
            "env in (prod, staging);true",
            "env in (dev);false",
            "env notin (dev,staging);true",
            "missing notin (a);true",
            "env notin (prod);false",
            "app;true",
            "missing;false",
            "!missing;true",
            "!app;false",
            "app=web,tier=front,env in (prod);true",
            "app=web, tier=back;false",
    })
    void matches(String selector, boolean expected) {
        assertThat(LabelSelector.parse(selector).matches(LABELS)).isEqualTo(expected);
    }

    @Test
    void objectWithoutLabels() {
        assertThat(LabelSelector.parse("app!=web").matches(null)).isTrue();
        assertThat(LabelSelector.parse("app").matches(null)).isFalse();
        assertThat(LabelSelector.everything().matches(null)).isTrue();
    }

    @Test
    void matchLabels() {
        assertThat(LabelSelector.matchLabels(Map.of("app", "web")).matches(LABELS)).isTrue();
        assertThat(LabelSelector.matchLabels(Map.of("app", "web", "env", "dev")).matches(LABELS)).isFalse();
        assertThat(LabelSelector.matchLabels(Map.of()).isEverything()).isTrue();
        assertThat(LabelSelector.matchLabels(Map.of("app", "web"))).hasToString("app=web");
    }

    @ParameterizedTest
    @ValueSource(strings = {"=web", "app=web=x", "app in prod", "(a)", "a b", "!"})
    void rejectsMalformed(String selector) {
        assertThatThrownBy(() -> LabelSelector.parse(selector)).isInstanceOf(IllegalArgumentException.class);
    }
}
