package io.reactiveinformer.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResourceVersionsTest {

    @Test
    void decimalVersionsCompareAsNumbersNotAsStrings() {
        assertThat(ResourceVersions.isAtLeast("10", "9")).as("\"10\" < \"9\" as strings").isTrue();
        assertThat(ResourceVersions.isAtLeast("9", "10")).isFalse();
        assertThat(ResourceVersions.isAtLeast("42", "42")).isTrue();
        assertThat(ResourceVersions.isAtLeast("18446744073709551", "18446744073709550")).isTrue();
    }

    @Test
    void anEmptyOrZeroTargetIsAlwaysReachedAndAnEmptyVersionReachesNothingElse() {
        assertThat(ResourceVersions.isAtLeast("", "")).isTrue();
        assertThat(ResourceVersions.isAtLeast("", "0")).isTrue();
        assertThat(ResourceVersions.isAtLeast("", "1")).isFalse();
        assertThat(ResourceVersions.isAtLeast("7", "")).isTrue();
    }

    @Test
    void opaqueVersionsOnlyMatchWhenEqual() {
        assertThat(ResourceVersions.isAtLeast("abc", "abc")).isTrue();
        assertThat(ResourceVersions.isAtLeast("abd", "abc")).isFalse();
        assertThat(ResourceVersions.isAtLeast("12", "abc")).isFalse();
        assertThat(ResourceVersions.isAtLeast("-3", "-4")).as("not an unsigned decimal").isFalse();
        assertThat(ResourceVersions.isAtLeast("99999999999999999999", "1")).as("beyond 64 bits").isFalse();
    }
}
