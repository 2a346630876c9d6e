package io.reactiveinformer.test.server;

/** Parsing of the resourceVersion query parameter. */
final class ResourceVersions {

    private ResourceVersions() {
    }

    static long parse(String rv) {
        try {
            long v = Long.parseLong(rv);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw ApiError.badRequest("invalid resource version: \"" + rv + "\"");
    }
}
