package io.reactiveinformer.informer;

import java.util.Objects;

/**
 * One change to one object.
 *
 * @param type      what happened
 * @param object    the object after the change; for {@link DeltaType#DELETED} its final state, or
 *                  the last known one when {@code tombstone} is set
 * @param tombstone set only for a deletion whose final state is unknown (found by a relist)
 * @param <T>       the object type
 */
record Delta<T>(DeltaType type, T object, DeletedFinalStateUnknown<T> tombstone) {

    public Delta {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(object, "object");
        if (tombstone != null && (type != DeltaType.DELETED || tombstone.lastKnownObject() != object)) {
            throw new IllegalArgumentException("a tombstone belongs to a DELETED delta of its last known object");
        }
    }

    /** A delta with a known object state. */
    public static <T> Delta<T> of(DeltaType type, T object) {
        return new Delta<>(type, object, null);
    }

    /** A deletion whose final state is unknown. */
    public static <T> Delta<T> deleted(DeletedFinalStateUnknown<T> tombstone) {
        return new Delta<>(DeltaType.DELETED, tombstone.lastKnownObject(), tombstone);
    }

    /** Whether this is a deletion whose final state is unknown. */
    public boolean isFinalStateUnknown() {
        return tombstone != null;
    }
}
