package io.reactiveinformer.test.server;

import tools.jackson.databind.JsonNode;

/**
 * One event of a simulated watch, before encoding.
 *
 * @param type   what happened
 * @param object the object tree (a {@code Status} for {@link EventType#ERROR}); shared, never to be mutated
 */
public record StreamEvent(EventType type, JsonNode object) {
}
