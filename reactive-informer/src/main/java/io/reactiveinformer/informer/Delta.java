package io.reactiveinformer.informer;

/**
 * One change to one object, as the FIFO holds it. Only watch events and resyncs become deltas, so a
 * deletion always carries the object's final state; a deletion a relist finds (final state unknown) is
 * told to handlers directly by {@link DeltaApplier}.
 *
 * @param type   what happened
 * @param object the object after the change; for {@link DeltaType#DELETED} its final state
 * @param <T>    the object type
 */
record Delta<T>(DeltaType type, T object) {
}
