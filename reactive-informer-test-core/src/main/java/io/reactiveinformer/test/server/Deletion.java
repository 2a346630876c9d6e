package io.reactiveinformer.test.server;

import tools.jackson.databind.node.ObjectNode;

/**
 * What a DELETE did.
 *
 * @param object  the object as deleted, or as it now waits (finalizers, grace period)
 * @param removed whether it is gone; else it is marked for deletion
 * @param listed  the object before the delete
 */
record Deletion(ObjectNode object, boolean removed, ObjectNode listed) {
}
