package io.reactiveinformer.test.server;

import tools.jackson.databind.JsonNode;

/**
 * One event of a simulated watch, before encoding.
 *
 * @param type   {@code ADDED}, {@code MODIFIED}, {@code DELETED}, {@code BOOKMARK} or {@code ERROR}
 * @param object the object tree (a {@code Status} for {@code ERROR}); shared, never to be mutated
 */
public record StreamEvent(String type, JsonNode object) {
}
