package io.reactiveinformer.test.server;

import tools.jackson.databind.JsonNode;

/** The real server's errors of a strategic merge patch, worded as its patch library words them. */
final class StrategicMergeErrors {

    private StrategicMergeErrors() {
    }

    /** The real server answers an error of the patch library it does not classify with a bare 500. */
    static ApiError internalError(String message) {
        return new ApiError(500, null, message, null, null);
    }

    static ApiError noMergeKey(JsonNode item, String mergeKey) {
        return internalError("map: " + GoFormat.of(item) + " does not contain declared merge key: " + mergeKey);
    }

    static ApiError badArgType(String expected, JsonNode actual) {
        return internalError("expected a " + expected + ", but received a " + GoFormat.type(actual));
    }
}
