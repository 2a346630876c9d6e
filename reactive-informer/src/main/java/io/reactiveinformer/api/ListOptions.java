package io.reactiveinformer.api;

/**
 * Query parameters of a LIST request. Every field may be {@code null} (not sent).
 *
 * @param labelSelector        e.g. {@code app=web,tier!=db}
 * @param fieldSelector        e.g. {@code metadata.name=foo}
 * @param limit                page size; {@code null} or 0 for an unpaginated list
 * @param continueToken        the previous page's continue token
 * @param resourceVersion      {@code ""} consistent read, {@code "0"} any cached state, or a version
 * @param resourceVersionMatch {@code NotOlderThan} or {@code Exact}, with a non-empty resourceVersion
 */
public record ListOptions(String labelSelector, String fieldSelector, Integer limit, String continueToken,
                          String resourceVersion, String resourceVersionMatch) {

    private static final ListOptions NONE = new ListOptions(null, null, null, null, null, null);

    /** No parameters at all: an unpaginated consistent read of everything. */
    public static ListOptions none() {
        return NONE;
    }

    public ListOptions withSelectors(String labelSelector, String fieldSelector) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch);
    }

    public ListOptions withLimit(Integer limit) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch);
    }

    public ListOptions withContinue(String continueToken) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch);
    }

    public ListOptions withResourceVersion(String resourceVersion, String resourceVersionMatch) {
        return new ListOptions(labelSelector, fieldSelector, limit, continueToken, resourceVersion, resourceVersionMatch);
    }
}
