package io.reactiveinformer.informer;

import java.util.ArrayList;
import java.util.List;

/**
 * The deltas waiting for one key, coalesced as they arrive so that a key's memory is bounded
 * whatever the event rate (at most five deltas; see {@link #append}). Confined to the
 * {@link DeltaFifo}'s drain loop.
 */
final class PendingDeltas<T> {

    /** The one delta while there is one: most keys are delivered before a second change arrives. */
    private Delta<T> only;
    /** Every delta, once there is a second; {@code null} until then. */
    private ArrayList<Delta<T>> deltas;
    private final String versionBefore;

    /**
     * @param versionBefore the resourceVersion of the last change the FIFO received before this key became
     *                      pending: once this key is delivered, everything up to it has been
     */
    PendingDeltas(String versionBefore) {
        this.versionBefore = versionBefore;
    }

    String versionBefore() {
        return versionBefore;
    }

    /**
     * Appends {@code delta}, coalescing:
     * <ul>
     *   <li>a run of non-deletion deltas keeps its newest delta, preceded by its first one when that
     *       is an {@link DeltaType#ADDED} (so consecutive updates collapse to the newest, and a resync
     *       pending behind a newer update is dropped);</li>
     *   <li>a deletion replaces the first pending deletion and everything after it (delete, recreate,
     *       delete ends deleted), so of two deletions the newer stays.</li>
     * </ul>
     * The list is therefore at most: a run of two, a deletion, a run of two.
     */
    void append(Delta<T> delta) {
        if (deltas == null) {
            if (only == null) {
                only = delta;
                return;
            }
            deltas = new ArrayList<>(2);
            deltas.add(only);
            only = null;
        }
        if (delta.type() == DeltaType.DELETED) {
            appendDeletion(delta);
            return;
        }
        int runStart = lastDeletionIndex() + 1;
        int runLength = deltas.size() - runStart;
        if (runLength == 0 || (runLength == 1 && deltas.get(runStart).type() == DeltaType.ADDED)) {
            deltas.add(delta);
        } else {
            deltas.set(deltas.size() - 1, delta);
        }
    }

    private void appendDeletion(Delta<T> delta) {
        int first = firstDeletionIndex();
        if (first < 0) {
            deltas.add(delta);
            return;
        }
        deltas.subList(first, deltas.size()).clear();
        deltas.add(delta);
    }

    private int firstDeletionIndex() {
        for (int i = 0; i < deltas.size(); i++) {
            if (deltas.get(i).type() == DeltaType.DELETED) {
                return i;
            }
        }
        return -1;
    }

    private int lastDeletionIndex() {
        for (int i = deltas.size() - 1; i >= 0; i--) {
            if (deltas.get(i).type() == DeltaType.DELETED) {
                return i;
            }
        }
        return -1;
    }

    /** The pending deltas, oldest first: at least one, if one was appended. */
    List<Delta<T>> toList() {
        return deltas != null ? deltas : only != null ? List.of(only) : List.of();
    }
}
