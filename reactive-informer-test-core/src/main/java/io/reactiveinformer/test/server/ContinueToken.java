package io.reactiveinformer.test.server;

import io.reactiveinformer.codec.KubernetesJson;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** The opaque continue token, shaped like the real server's: the version of the first page and the key to resume from. */
record ContinueToken(long resourceVersion, String start) {

    String encode() {
        String text = "{\"v\":\"meta.k8s.io/v1\",\"rv\":" + resourceVersion + ",\"start\":"
                + KubernetesJson.defaults().mapper().writeValueAsString(start) + "}";
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static ContinueToken decode(String token) {
        try {
            JsonNode node = KubernetesJson.defaults().mapper().readTree(Base64.getUrlDecoder().decode(token));
            if (!node.path("rv").canConvertToLong() || !node.path("start").isString()) {
                throw new IllegalArgumentException("missing fields");
            }
            return new ContinueToken(node.path("rv").asLong(), node.path("start").asString());
        } catch (IllegalArgumentException | JacksonException e) {
            throw ApiError.badRequest("continue key is not valid: " + e.getMessage());
        }
    }
}
