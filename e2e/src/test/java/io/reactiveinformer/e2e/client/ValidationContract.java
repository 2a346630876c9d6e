package io.reactiveinformer.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.RawRequest;
import io.reactiveinformer.client.ResourceClient;

/** What the server refuses: bodies of another kind, invalid names, missing or terminating namespaces, immutable data, finalizers added to an object being deleted. */
abstract class ValidationContract extends ClientContract {

    ValidationContract(Backend backend) {
        super(backend);
    }

    @Test
    void aBodyOfAnotherKindOrVersionIsABadRequest() {
        String path = "/api/v1/namespaces/" + namespace("kind") + "/configmaps";

        assertThatThrownBy(() -> post(path, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s\"}}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("Secret in version \"v1\" cannot be handled as a ConfigMap");
                });
        assertThatThrownBy(() -> post(path, "{\"apiVersion\":\"apps/v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"}}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("ConfigMap in version \"v1\" cannot be handled as a "
                            + "ConfigMap: no kind \"ConfigMap\" is registered for version \"apps/v1\"");
                });
        post(path, "{\"metadata\":{\"name\":\"no-kind\"}}");
        assertThat(await(configMaps(path.split("/")[4]).get("no-kind")).getKind()).isEqualTo("ConfigMap");
    }

    @Test
    void namesMustBeDnsSubdomainsOrLabels() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("names"));

        assertThatThrownBy(() -> await(maps.create(configMap("Bad_Name", Map.of()))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.reason()).isEqualTo("Invalid");
                    assertThat(e.getMessage()).contains("ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: "
                            + "\"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric");
                });
        assertThatThrownBy(() -> await(admin().resource(V1Namespace.class)
                .create(new V1Namespace().metadata(new V1ObjectMeta().name("has.dot")))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("Namespace \"has.dot\" is invalid: metadata.name: Invalid value: "
                            + "\"has.dot\": must not contain dots");
                });
        assertThatThrownBy(() -> await(admin().resource(V1Namespace.class)
                .create(new V1Namespace().metadata(new V1ObjectMeta().name("Upper")))))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.getMessage())
                        .contains("a lowercase RFC 1123 label must consist of"));
        assertThat(await(maps.create(configMap("fine.name-1", Map.of()))).getMetadata().getName()).isEqualTo("fine.name-1");
    }

    @Test
    void creatingInAMissingOrTerminatingNamespaceIsRefused() {
        String ns = namespace("terminating");
        await(admin().resource(V1Namespace.class).delete(ns));
        V1Namespace terminating = await(admin().resource(V1Namespace.class).get(ns));

        assertThat(terminating.getStatus().getPhase()).isEqualTo("Terminating");
        assertThat(terminating.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThatThrownBy(() -> await(configMaps(ns).create(configMap("c", Map.of()))))
                .isInstanceOfSatisfying(KubernetesApiException.Forbidden.class, e -> assertThat(e.getMessage())
                        .contains("unable to create new content in namespace " + ns + " because it is being terminated"));
        assertThatThrownBy(() -> await(configMaps(ns + "-missing").create(configMap("c", Map.of()))))
                .isInstanceOfSatisfying(KubernetesApiException.NotFound.class, e -> assertThat(e.getMessage())
                        .contains("namespaces \"" + ns + "-missing\" not found"));
    }

    @Test
    void immutableConfigMapsKeepTheirDataAndStayImmutable() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("immutable"));
        await(maps.create(configMap("c", Map.of("a", "1")).immutable(true)));

        assertThatThrownBy(() -> await(maps.patch("c", PatchType.MERGE, "{\"data\":{\"a\":\"2\"}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("ConfigMap \"c\" is invalid: data: Forbidden: field is immutable "
                            + "when `immutable` is set");
                });
        assertThatThrownBy(() -> await(maps.patch("c", PatchType.MERGE, "{\"immutable\":false}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.getMessage())
                        .contains("immutable: Forbidden: field is immutable when `immutable` is set"));
        V1ConfigMap labelled = await(maps.patch("c", PatchType.MERGE, "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}"));
        assertThat(labelled.getMetadata().getLabels()).containsEntry("x", "y");
        assertThat(labelled.getData()).isEqualTo(Map.of("a", "1"));
    }

    @Test
    void noFinalizerCanBeAddedToAnObjectBeingDeleted() {
        ResourceClient<V1ConfigMap> maps = configMaps(namespace("finalizers"));
        V1ConfigMap held = configMap("c", Map.of());
        held.getMetadata().finalizers(List.of("example.com/a"));
        await(maps.create(held));
        await(maps.delete("c"));
        String message = "Forbidden: no new finalizers can be added if the object is being deleted, found new "
                + "finalizers []string{\"x.io/b\", \"x.io/c\"}";

        assertThatThrownBy(() -> await(maps.patch("c", PatchType.MERGE,
                "{\"metadata\":{\"finalizers\":[\"example.com/a\",\"x.io/c\",\"x.io/b\"]}}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    assertThat(e.code()).isEqualTo(422);
                    assertThat(e.reason()).isEqualTo("Invalid");
                    V1Status status = e.status().orElseThrow();
                    assertThat(status.getMessage()).isEqualTo("ConfigMap \"c\" is invalid: metadata.finalizers: " + message);
                    assertThat(status.getDetails().getKind()).isEqualTo("ConfigMap");
                    assertThat(status.getDetails().getName()).isEqualTo("c");
                    V1StatusCause cause = new V1StatusCause().reason("FieldValueForbidden").field("metadata.finalizers")
                            .message(message);
                    assertThat(status.getDetails().getCauses()).as("listed twice by kube-apiserver").containsExactly(cause, cause);
                });
        assertThatThrownBy(() -> await(maps.patch("c", PatchType.MERGE,
                "{\"metadata\":{\"finalizers\":[\"x.io/b\"]}}")))
                .as("swapping the finalizer for another adds one")
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.code()).isEqualTo(422));

        await(maps.patch("c", PatchType.MERGE, "{\"metadata\":{\"finalizers\":null}}"));
        assertThatThrownBy(() -> await(maps.get("c"))).as("removing the last finalizer completes the deletion")
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.code()).isEqualTo(404));
    }

    /** kubectl prints the causes of a 422: the real server lists one per invalid field, under the kind's name. */
    @Test
    void invalidBuiltInObjectsCarryTheirCauses() {
        String ns = namespace("causes");
        String subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                + "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                + "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

        assertThatThrownBy(() -> post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"name\":\"Bad_Name\"}}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertInvalid(e, "ConfigMap", "Bad_Name",
                        new V1StatusCause().reason("FieldValueInvalid").field("metadata.name")
                                .message("Invalid value: \"Bad_Name\": " + subdomain)));
        assertThatThrownBy(() -> post("/apis/apps/v1/namespaces/" + ns + "/deployments", "{\"metadata\":{\"name\":"
                + "\"Bad_Name\"},\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":"
                + "{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}"))
                .as("the kind qualified by its group")
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
                    V1Status status = e.status().orElseThrow();
                    assertThat(status.getMessage()).startsWith("Deployment.apps \"Bad_Name\" is invalid: metadata.name: ");
                    assertThat(status.getDetails().getGroup()).isEqualTo("apps");
                    assertThat(status.getDetails().getKind()).isEqualTo("Deployment");
                    assertThat(status.getDetails().getCauses()).extracting(V1StatusCause::getField).containsExactly("metadata.name");
                });
        assertThatThrownBy(() -> post("/api/v1/namespaces/" + ns + "/configmaps", "{\"metadata\":{\"generateName\":\"\"}}"))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertInvalid(e, "ConfigMap", "",
                        new V1StatusCause().reason("FieldValueRequired").field("metadata.name")
                                .message("Required value: name or generateName is required")));
        ResourceClient<V1ConfigMap> maps = configMaps(ns);
        await(maps.create(configMap("frozen", Map.of("a", "1")).immutable(true)));
        assertThatThrownBy(() -> await(maps.patch("frozen", PatchType.MERGE, "{\"data\":{\"a\":\"2\"},\"immutable\":false}")))
                .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertInvalid(e, "ConfigMap", "frozen",
                        new V1StatusCause().reason("FieldValueForbidden").field("immutable")
                                .message("Forbidden: field is immutable when `immutable` is set"),
                        new V1StatusCause().reason("FieldValueForbidden").field("data")
                                .message("Forbidden: field is immutable when `immutable` is set")));
    }

    private static void assertInvalid(KubernetesApiException e, String kind, String name, V1StatusCause... causes) {
        assertThat(e.code()).isEqualTo(422);
        V1Status status = e.status().orElseThrow();
        assertThat(status.getReason()).isEqualTo("Invalid");
        String fields = causes.length == 1 ? causes[0].getField() + ": " + causes[0].getMessage()
                : "[" + String.join(", ", Arrays.stream(causes).map(c -> c.getField() + ": " + c.getMessage())
                        .toList()) + "]";
        assertThat(status.getMessage()).isEqualTo(kind + " \"" + name + "\" is invalid: " + fields);
        assertThat(status.getDetails().getKind()).isEqualTo(kind);
        assertThat(status.getDetails().getName()).as("an empty name is left out").isEqualTo(name.isEmpty() ? null : name);
        assertThat(status.getDetails().getGroup()).as("core").isNull();
        assertThat(status.getDetails().getCauses()).containsExactly(causes);
    }

    private void post(String path, String json) {
        await(admin().raw(RawRequest.of("POST", path, "application/json", json.getBytes(StandardCharsets.UTF_8))));
    }
}
