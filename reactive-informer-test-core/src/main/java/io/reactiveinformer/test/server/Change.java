package io.reactiveinformer.test.server;

import tools.jackson.databind.node.ObjectNode;

/**
 * One committed mutation, as the history keeps it: enough to replay it to watchers and to undo it
 * when a LIST asks for an older version.
 *
 * @param previous the object before the change, {@code null} for {@code ADDED}
 */
record Change(long resourceVersion, Kind kind, String type, String key, ObjectNode object, ObjectNode previous) {
}
