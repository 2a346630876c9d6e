package io.reactiveinformer.test.server;

import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a response writes objects, negotiated from the {@code Accept} header as the API server does:
 * whole, or reduced to {@code PartialObjectMetadata} when the client asks for
 * {@code application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1}.
 */
enum Representation {

    FULL,
    METADATA;

    static final String META_API_VERSION = "meta.k8s.io/v1";

    /**
     * The first media range of {@code accept} this server can produce: plain JSON (or a wildcard)
     * means whole objects; {@code as=PartialObjectMetadataList} (for a LIST) or
     * {@code as=PartialObjectMetadata} (for anything else) in {@code meta.k8s.io/v1} means metadata.
     * Other ranges (protobuf, tables, other versions) are passed over.
     *
     * @param list whether the response is a list
     * @throws ApiError 406 when no range can be produced
     */
    static Representation negotiate(String accept, boolean list) {
        if (accept == null || accept.isBlank()) {
            return FULL;
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
            if (!mediaType.equals("application/json") && !mediaType.equals("application/*")
                    && !mediaType.equals("*/*")) {
                continue;
            }
            String as = null;
            String group = null;
            String version = null;
            for (int i = 1; i < parts.length; i++) {
                String[] kv = parts[i].trim().split("=", 2);
                String value = kv.length == 2 ? kv[1].trim() : "";
                switch (kv[0].trim()) {
                    case "as" -> as = value;
                    case "g" -> group = value;
                    case "v" -> version = value;
                    default -> {
                        // q and unknown parameters do not change what is produced
                    }
                }
            }
            if (as == null) {
                return FULL;
            }
            if (as.equals(list ? "PartialObjectMetadataList" : "PartialObjectMetadata") && "meta.k8s.io".equals(group)
                    && "v1".equals(version)) {
                return METADATA;
            }
        }
        throw ApiError.notAcceptable("application/json, application/json;as=" + (list ? "PartialObjectMetadataList"
                : "PartialObjectMetadata") + ";g=meta.k8s.io;v=v1");
    }

    /** {@code object} as this representation writes it: itself, or its metadata as a PartialObjectMetadata. */
    JsonNode object(JsonNode object) {
        if (this == FULL) {
            return object;
        }
        ObjectNode partial = JsonNodeFactory.instance.objectNode();
        partial.put("kind", "PartialObjectMetadata");
        partial.put("apiVersion", META_API_VERSION);
        JsonNode metadata = object.get("metadata");
        if (metadata != null) {
            partial.set("metadata", metadata);
        }
        return partial;
    }
}
