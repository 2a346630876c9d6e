package io.reactiveinformer.test.server;

import tools.jackson.databind.node.ObjectNode;

/**
 * One committed mutation, as the history keeps it: enough to replay it to watchers and to undo it
 * when a LIST asks for an older version.
 *
 * @param type     {@link EventType#ADDED}, {@link EventType#MODIFIED} or {@link EventType#DELETED}
 * @param previous the object before the change, {@code null} for {@code ADDED}
 */
record Change(long resourceVersion, EventType type, String key, ObjectNode object, ObjectNode previous) {
}
