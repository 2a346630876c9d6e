package io.reactiveinformer.watch;

/**
 * Beyond client-go: notices that the API server's store went back in time, as after etcd is restored from
 * a backup without a revision bump. A watch resumed from a resourceVersion the restored store has not
 * reached yet is accepted and stays silent (kube-apiserver sends not even the response headers), and once
 * the store's revision passes it, it delivers the new timeline's changes on top of a cache that still holds
 * the old one: stale forever, with no error to react to. client-go's reflector has the same blind spot.
 *
 * <p>The signal: after the connection was lost (the watch failed, or the server closed it before the
 * timeout it was asked for, as a restarting apiserver or a re-initialized watch cache does), a re-watch
 * that delivers nothing for {@code probeDelay} triggers a probe: one consistent LIST with
 * {@code limit=1}, whose resourceVersion is the store's current revision. A revision older than the
 * newest one already synced means the store rolled back: relist. The probe costs one small request per
 * reconnect that stays quiet, never one per event; a re-watch that delivers anything settles the question
 * without a request.
 *
 * <p>Its limit: the restored store's revision must still be behind what was synced when the reflector
 * re-watches. A store that has meanwhile written more revisions than the backup was behind answers
 * watches normally (or with 410, when they predate its watch cache) and cannot be told apart here.
 * Restoring with {@code etcdutl snapshot restore --bump-revision --mark-compacted}, as the Kubernetes
 * documentation recommends, turns every old resourceVersion into a 410 and needs no detection.
 *
 * <p>resourceVersions are opaque by contract; this compares them as the unsigned decimal etcd revisions
 * kube-apiserver hands out, and stays silent for any it cannot parse.
 *
 * <p>Not thread-safe: owned by one {@link ReflectorRun}, whose signals are serialized.
 */
final class StoreRollbackDetector {

    private static final long UNKNOWN = -1;

    private long newestSynced = UNKNOWN;
    private boolean probeDue;

    /** A list (or streaming list) replaced the state at {@code resourceVersion}: that is the new baseline. */
    void listed(String resourceVersion) {
        newestSynced = parse(resourceVersion);
        probeDue = false;
    }

    /** A watch delivered an event or bookmark at {@code resourceVersion}: the stream is live. */
    void observed(String resourceVersion) {
        long version = parse(resourceVersion);
        if (version > newestSynced) {
            newestSynced = version;
        }
        probeDue = false;
    }

    /** The watch failed or the server ended it early: the next quiet re-watch is worth a probe. */
    void connectionLost() {
        probeDue = newestSynced != UNKNOWN;
    }

    boolean probeDue() {
        return probeDue;
    }

    /**
     * The verdict on a probe that found the store at {@code currentResourceVersion}: {@code true} when it
     * is older than the newest version synced, i.e. the store rolled back and the cache must be relisted.
     * Either way the probe is no longer due.
     */
    boolean rolledBack(String currentResourceVersion) {
        probeDue = false;
        return isOlder(currentResourceVersion, newestSynced);
    }

    /** The newest version synced, or -1 when none could be parsed. */
    long newestSynced() {
        return newestSynced;
    }

    /** Whether {@code resourceVersion} is older than {@code newestSynced} (false when either is unknown). */
    static boolean isOlder(String resourceVersion, long newestSynced) {
        long version = parse(resourceVersion);
        return version != UNKNOWN && newestSynced != UNKNOWN && version < newestSynced;
    }

    private static long parse(String resourceVersion) {
        if (resourceVersion == null || resourceVersion.isEmpty() || resourceVersion.length() > 18) {
            return UNKNOWN;
        }
        long value = 0;
        for (int i = 0; i < resourceVersion.length(); i++) {
            char c = resourceVersion.charAt(i);
            if (c < '0' || c > '9') {
                return UNKNOWN;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
