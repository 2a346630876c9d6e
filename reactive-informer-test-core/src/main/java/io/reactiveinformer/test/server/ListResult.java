package io.reactiveinformer.test.server;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * One page of a simulated LIST.
 *
 * @param items              the page's object trees in key order (shared, never to be mutated)
 * @param resourceVersion    the version the page is consistent with
 * @param continueToken      the token for the next page, or {@code null} on the last one
 * @param remainingItemCount objects after this page, when paginated without selectors; else {@code null}
 * @param shardSelector      the shard selector applied, as the server echoes it in {@code metadata.shardInfo};
 *                           {@code null} when none was (none asked for, or the gate is off)
 */
public record ListResult(List<ObjectNode> items, String resourceVersion, String continueToken,
                         Long remainingItemCount, String shardSelector) {
}
