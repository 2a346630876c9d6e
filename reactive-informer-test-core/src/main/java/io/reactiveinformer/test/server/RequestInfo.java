package io.reactiveinformer.test.server;

import java.util.Map;
import java.util.function.Predicate;

/**
 * A request the {@link SimulatedApiServer} received, for fault matching and for assertions.
 *
 * @param method e.g. {@code GET}
 * @param path   the decoded path, without the query
 * @param query  the query parameters (the first value of each)
 */
public record RequestInfo(String method, String path, Map<String, String> query) {

    public RequestInfo {
        query = Map.copyOf(query);
    }

    public boolean isWatch() {
        String watch = query.get("watch");
        return "GET".equals(method) && ("true".equals(watch) || "1".equals(watch));
    }

    /** A GET without {@code watch}: a LIST or a GET of one object. */
    public boolean isRead() {
        return "GET".equals(method) && !isWatch();
    }

    public static Predicate<RequestInfo> any() {
        return r -> true;
    }

    public static Predicate<RequestInfo> watches() {
        return RequestInfo::isWatch;
    }

    /** GETs that are not watches (lists and single reads). */
    public static Predicate<RequestInfo> reads() {
        return RequestInfo::isRead;
    }

    /** Requests whose path contains {@code fragment}, e.g. {@code "/configmaps"}. */
    public static Predicate<RequestInfo> pathContains(String fragment) {
        return r -> r.path().contains(fragment);
    }

    public static Predicate<RequestInfo> method(String method) {
        return r -> r.method().equals(method);
    }
}
