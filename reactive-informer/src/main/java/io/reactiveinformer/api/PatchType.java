package io.reactiveinformer.api;

/** The patch formats the API server accepts, by content type. */
public enum PatchType {
    /** RFC 6902 JSON patch: an array of operations. */
    JSON_PATCH("application/json-patch+json"),
    /** RFC 7386 JSON merge patch. */
    MERGE("application/merge-patch+json"),
    /** Kubernetes strategic merge patch (built-in kinds only). */
    STRATEGIC_MERGE("application/strategic-merge-patch+json"),
    /** Server-side apply: the full intended state; needs a field manager. */
    APPLY("application/apply-patch+yaml");

    private final String contentType;

    PatchType(String contentType) {
        this.contentType = contentType;
    }

    public String contentType() {
        return contentType;
    }
}
