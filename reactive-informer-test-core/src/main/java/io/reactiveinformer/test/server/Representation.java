package io.reactiveinformer.test.server;

import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a response writes objects, negotiated from the {@code Accept} header as the API server does:
 * whole, or reduced to {@code PartialObjectMetadata} when the client asks for
 * {@code application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1}; in JSON, or in protobuf
 * ({@code application/vnd.kubernetes.protobuf}, with the same parameters) for the kinds that have a message.
 */
enum Representation {

    FULL,
    METADATA;

    static final String META_API_VERSION = "meta.k8s.io/v1";
    static final String PROTOBUF = "application/vnd.kubernetes.protobuf";

    /** A negotiated response: what it writes of the objects, and whether in protobuf (else JSON). */
    record Negotiated(Representation representation, boolean protobuf) {
        static final Negotiated JSON = new Negotiated(FULL, false);
    }

    /**
     * The first media range of {@code accept} this server can produce: plain JSON (or a wildcard)
     * means whole objects; {@code as=PartialObjectMetadataList} (for a LIST) or
     * {@code as=PartialObjectMetadata} (for anything else) in {@code meta.k8s.io/v1} means metadata.
     * Protobuf ranges are read the same way when the server serves protobuf; whole objects only for a kind
     * with a message (a custom resource passes such a range over, as kube-apiserver does). Other ranges
     * (tables, other versions, YAML, CBOR) are passed over.
     *
     * @param list          whether the response is a list
     * @param protobuf      whether the server serves protobuf
     * @param kindHasMessage whether the kind's objects have a protobuf message
     * @throws ApiError 406 when no range can be produced
     */
    static Negotiated negotiate(String accept, boolean list, boolean protobuf, boolean kindHasMessage) {
        if (accept == null || accept.isBlank()) {
            return Negotiated.JSON;
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
            boolean inProtobuf = mediaType.equals(PROTOBUF);
            if (inProtobuf ? !protobuf : !mediaType.equals("application/json") && !mediaType.equals("application/*")
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
                if (!inProtobuf || kindHasMessage) {
                    return new Negotiated(FULL, inProtobuf);
                }
            } else if (as.equals(list ? "PartialObjectMetadataList" : "PartialObjectMetadata")
                    && "meta.k8s.io".equals(group) && "v1".equals(version)) {
                return new Negotiated(METADATA, inProtobuf);
            }
        }
        throw ApiError.notAcceptable("application/json, application/json;as=" + (list ? "PartialObjectMetadataList"
                : "PartialObjectMetadata") + ";g=meta.k8s.io;v=v1" + (protobuf ? ", " + PROTOBUF : ""));
    }

    /**
     * Whether an error {@code Status} answering {@code accept} is written in protobuf: when the first range
     * a {@code Status} can be written in (JSON, protobuf, a wildcard; none naming another representation with
     * {@code as}) is protobuf, as kube-apiserver answers, whatever the kind.
     */
    static boolean statusInProtobuf(String accept, boolean protobuf) {
        if (!protobuf || accept == null) {
            return false;
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            String mediaType = parts[0].trim().toLowerCase(Locale.ROOT);
            boolean named = false;
            for (int i = 1; i < parts.length; i++) {
                named |= parts[i].trim().startsWith("as=");
            }
            if (named) {
                continue;
            }
            if (mediaType.equals(PROTOBUF)) {
                return true;
            }
            if (mediaType.equals("application/json") || mediaType.equals("application/*") || mediaType.equals("*/*")) {
                return false;
            }
        }
        return false;
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
