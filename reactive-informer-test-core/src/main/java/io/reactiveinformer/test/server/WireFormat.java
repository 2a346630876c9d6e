package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.reactiveinformer.codec.KubernetesJson;
import java.io.ByteArrayOutputStream;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;

/** Watch event lines and LIST pages as the API server writes them, in the client's JSON mapping. */
final class WireFormat {

    private WireFormat() {
    }

    /**
     * One watch event line: {@code {"type":...,"object":...}\n}.
     *
     * @param type {@code ADDED}, {@code MODIFIED}, {@code DELETED}, {@code BOOKMARK} or {@code ERROR}
     *             (with a {@code V1Status} object)
     */
    static byte[] watchEvent(KubernetesJson json, String type, Object object) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        try (JsonGenerator gen = json.mapper().createGenerator(out)) {
            gen.writeStartObject();
            gen.writeStringProperty("type", type);
            gen.writeName("object");
            gen.writePOJO(object);
            gen.writeEndObject();
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot encode a " + type + " event", e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    /**
     * One LIST response page.
     *
     * @param apiVersion e.g. {@code v1}
     * @param kind       e.g. {@code PodList}
     * @param metadata   resourceVersion, continue token, remaining item count
     * @param items      the page's objects
     */
    static byte[] list(KubernetesJson json, String apiVersion, String kind, V1ListMeta metadata, List<?> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024 + items.size() * 4096);
        try (JsonGenerator gen = json.mapper().createGenerator(out)) {
            gen.writeStartObject();
            gen.writeStringProperty("kind", kind);
            gen.writeStringProperty("apiVersion", apiVersion);
            gen.writeName("metadata");
            gen.writePOJO(metadata == null ? new V1ListMeta() : metadata);
            gen.writeArrayPropertyStart("items");
            for (Object item : items) {
                gen.writePOJO(item);
            }
            gen.writeEndArray();
            gen.writeEndObject();
        } catch (JacksonException e) {
            throw new IllegalArgumentException("cannot encode a " + kind, e);
        }
        return out.toByteArray();
    }
}
