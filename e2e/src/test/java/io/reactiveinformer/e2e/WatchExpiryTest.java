package io.reactiveinformer.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import tools.jackson.databind.JsonNode;

@KubeApiServerTest
class WatchExpiryTest {

    @Test
    void watchFromAResourceVersionIssuedBeforeCompactAnswers410(KubeApiServer env) {
        ApiCalls admin = new ApiCalls(env, env.admin());
        String ns = admin.createNamespace("expiry");
        String configMaps = "/api/v1/namespaces/" + ns + "/configmaps";
        HttpResponse<String> created = admin.call("POST", configMaps,
                "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"old\"}}");
        String oldRv = ApiCalls.json(created).path("metadata").path("resourceVersion").asString();

        List<JsonNode> beforeCompact = watch(admin, configMaps, oldRv);
        long revision = env.compact();
        List<JsonNode> afterCompact = watch(admin, configMaps, oldRv);
        String freshRv = ApiCalls.json(admin.get(configMaps)).path("metadata").path("resourceVersion").asString();
        List<JsonNode> fromFreshRv = watch(admin, configMaps, freshRv);
        HttpResponse<String> exactListAtOldRv =
                admin.get(configMaps + "?resourceVersion=" + oldRv + "&resourceVersionMatch=Exact");

        assertThat(beforeCompact).as("a watch from a current RV is not expired").isEmpty();
        assertThat(revision).isGreaterThan(Long.parseLong(oldRv));
        assertThat(afterCompact).hasSize(1);
        JsonNode error = afterCompact.get(0);
        assertThat(error.path("type").asString()).isEqualTo("ERROR");
        assertThat(error.path("object").path("kind").asString()).isEqualTo("Status");
        assertThat(error.path("object").path("code").asInt()).isEqualTo(410);
        assertThat(error.path("object").path("reason").asString()).isEqualTo("Expired");
        assertThat(fromFreshRv).as("a watch from an RV issued after compact is not expired").isEmpty();
        assertThat(exactListAtOldRv.statusCode()).as(exactListAtOldRv.body()).isEqualTo(410);
    }

    /**
     * The events of a two-second watch from {@code resourceVersion}: the server ends the stream after
     * {@code timeoutSeconds}, or at once after an ERROR event.
     */
    private static List<JsonNode> watch(ApiCalls api, String collection, String resourceVersion) {
        HttpResponse<String> response =
                api.get(collection + "?watch=true&timeoutSeconds=2&resourceVersion=" + resourceVersion);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body().lines().filter(line -> !line.isBlank())
                .map(ApiCalls::json).toList();
    }
}
