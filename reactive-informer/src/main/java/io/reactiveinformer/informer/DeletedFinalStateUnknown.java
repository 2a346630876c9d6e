package io.reactiveinformer.informer;

import java.util.Objects;

/**
 * A tombstone: the object is gone, but its deletion was not observed, so its final state is unknown.
 * It arises when a relist no longer contains an object the cache held (the watch missed the
 * {@code DELETED} event, e.g. across a disconnect); {@code lastKnownObject} is the cache's last copy.
 *
 * @param key             the object's key
 * @param lastKnownObject the last state the cache held; possibly stale
 * @param <T>             the object type
 */
record DeletedFinalStateUnknown<T>(String key, T lastKnownObject) {

    public DeletedFinalStateUnknown {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(lastKnownObject, "lastKnownObject");
    }
}
