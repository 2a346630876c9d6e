package io.reactiveinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import java.util.List;
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
    @ValueSource(strings = {"=web", "app=web=x", "app in prod", "(a)", "a b", "!", "a=(b)", "a=-b", "-a=b",
            "Example.com/a=b", "/a", "a/", "a in (b c)", "a=b!",
            "x=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"})
    void rejectsMalformed(String selector) {
        assertThatThrownBy(() -> LabelSelector.parse(selector)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"app.kubernetes.io/name=web", "a=", "a_b.c-d=E_f.g-H", "k8s.io/x in (a,b)"})
    void acceptsTheServersLabelSyntax(String selector) {
        assertThat(LabelSelector.parse(selector)).hasToString(selector);
    }

    @Test
    void matchExpressionsOfAnObjectSpec() {
        V1LabelSelector selector = new V1LabelSelector()
                .matchLabels(Map.of("app", "web"))
                .addMatchExpressionsItem(expression("env", "In", "prod", "staging"))
                .addMatchExpressionsItem(expression("tier", "NotIn", "db"))
                .addMatchExpressionsItem(expression("app", "Exists"))
                .addMatchExpressionsItem(expression("canary", "DoesNotExist"));

        LabelSelector parsed = LabelSelector.of(selector);

        assertThat(parsed.matches(LABELS)).isTrue();
        assertThat(parsed.matches(Map.of("app", "web", "env", "dev"))).isFalse();
        assertThat(parsed.matches(Map.of("app", "web", "env", "prod", "tier", "db"))).isFalse();
        assertThat(parsed.matches(Map.of("app", "web", "env", "prod", "canary", "yes"))).isFalse();
        assertThat(parsed).hasToString("app=web,env in (prod,staging),tier notin (db),app,!canary");
        assertThat(LabelSelector.parse(parsed.toString()).matches(LABELS)).isTrue();
    }

    @Test
    void anEmptyObjectSelectorSelectsEverything() {
        assertThat(LabelSelector.of(new V1LabelSelector()).isEverything()).isTrue();
    }

    @Test
    void rejectsMalformedExpressions() {
        assertThatThrownBy(() -> LabelSelector.of(new V1LabelSelector().addMatchExpressionsItem(expression("a", "In"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("In needs values");
        assertThatThrownBy(() -> LabelSelector.of(new V1LabelSelector()
                .addMatchExpressionsItem(expression("a", "Exists", "x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Exists takes no values");
        assertThatThrownBy(() -> LabelSelector.of(new V1LabelSelector().addMatchExpressionsItem(expression("a", "Gt", "1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown operator Gt");
        assertThatThrownBy(() -> LabelSelector.of(new V1LabelSelector().matchLabels(Map.of("a", "(b)"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid value '(b)'");
    }

    private static V1LabelSelectorRequirement expression(String key, String operator, String... values) {
        return new V1LabelSelectorRequirement().key(key).operator(operator)
                .values(values.length == 0 ? null : List.of(values));
    }
}
