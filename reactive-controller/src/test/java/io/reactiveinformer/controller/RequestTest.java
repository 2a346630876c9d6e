package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import org.junit.jupiter.api.Test;

class RequestTest {

    @Test
    void keysLikeTheCache() {
        assertThat(Request.of("a", "p").key()).isEqualTo("a/p");
        assertThat(Request.clusterScoped("n").key()).isEqualTo("n");
        assertThat(Request.of("", "n")).isEqualTo(Request.clusterScoped("n"));
        assertThat(Request.parse("a/p")).isEqualTo(Request.of("a", "p"));
        assertThat(Request.parse("n")).isEqualTo(Request.clusterScoped("n"));
        assertThat(Request.of(new V1Pod().metadata(new V1ObjectMeta().namespace("a").name("p"))))
                .isEqualTo(Request.of("a", "p"));
        assertThat(Request.of("a", "p")).hasToString("a/p");
    }

    @Test
    void aNameIsRequired() {
        assertThatThrownBy(() -> Request.of("a", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Request.of("a", null)).isInstanceOf(NullPointerException.class);
    }
}
