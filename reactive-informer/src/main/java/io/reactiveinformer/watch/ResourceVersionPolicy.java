package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * Which resourceVersion a reflector lists from, and in pages of what size (client-go's
 * {@code relistResourceVersion} and its paging rules). Pure functions of the reflector's state, which
 * {@link ReflectorRun} passes in.
 */
final class ResourceVersionPolicy {

    private ResourceVersionPolicy() {
    }

    /**
     * Where a LIST starts: {@code "0"} (the server's watch cache, possibly stale) before anything was synced,
     * then the last synced version; {@code ""} (a consistent read from etcd) once the server said that
     * version is unavailable (expired, or not reached yet).
     */
    static String list(String lastSynced, boolean unavailable) {
        if (unavailable) {
            return "";
        }
        return lastSynced.isEmpty() ? "0" : lastSynced;
    }

    /**
     * Where a streaming list starts: the last synced version, or {@code ""} (consistent) the first time and
     * once that version is unavailable; never {@code "0"}.
     */
    static String streamingList(String lastSynced, boolean unavailable) {
        return unavailable ? "" : lastSynced;
    }

    /**
     * The page size of a LIST at {@code resourceVersion}: the configured one ({@code 0} for unlimited); by
     * default unlimited at a specific version (served from the watch cache, which does not page) unless
     * the server paginated an earlier list at {@code "0"}, else {@link ReflectorOptions#DEFAULT_PAGE_SIZE}.
     *
     * @return the limit, or {@code null} for none
     */
    static Integer pageLimit(Integer configuredPageSize, String resourceVersion, boolean paginatedResult) {
        if (configuredPageSize != null) {
            return configuredPageSize == 0 ? null : configuredPageSize;
        }
        boolean specificVersion = !resourceVersion.isEmpty() && !"0".equals(resourceVersion);
        return specificVersion && !paginatedResult ? null : ReflectorOptions.DEFAULT_PAGE_SIZE;
    }

    /**
     * Whether a list at {@code requestedVersion} that came back {@code paginated} shows the server has no watch
     * cache for the resource: a list at {@code "0"} paginated, so lists at a specific version would go to etcd
     * anyway and must stay paginated.
     */
    static boolean revealsNoWatchCache(String requestedVersion, boolean paginated) {
        return "0".equals(requestedVersion) && paginated;
    }

    /** The object's resourceVersion, or {@code null}. */
    static String of(KubernetesObject object) {
        V1ObjectMeta metadata = object.getMetadata();
        return metadata == null ? null : metadata.getResourceVersion();
    }
}
