package io.reactiveinformer.informer;

/** What a {@link Delta} says happened to an object: a watch event, or a resync. */
enum DeltaType {
    /** A watch reported the object created. */
    ADDED,
    /** A watch reported the object changed. */
    UPDATED,
    /** A watch reported the object deleted. */
    DELETED,
    /** A resync re-delivers the cached object unchanged. */
    SYNC
}
