package io.reactiveinformer.test.server;

import tools.jackson.databind.node.ObjectNode;

/**
 * A write as {@link ObjectSemantics} decided it, before it is committed (or, for a dry run, not).
 *
 * @param type     the change, or {@code null} when the write changes nothing
 * @param object   the object after the write (for {@link EventType#DELETED}: as last stored)
 * @param previous the object before, {@code null} for a create
 */
record Mutation(Kind kind, EventType type, String key, ObjectNode object, ObjectNode previous) {

    static Mutation none(Kind kind, String key, ObjectNode current) {
        return new Mutation(kind, null, key, current, current);
    }

    boolean changes() {
        return type != null;
    }
}
