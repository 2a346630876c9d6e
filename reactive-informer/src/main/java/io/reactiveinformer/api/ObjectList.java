package io.reactiveinformer.api;

import java.util.List;

/**
 * One page of a LIST response.
 *
 * @param items              the objects of this page, in the server's order
 * @param resourceVersion    the list's {@code metadata.resourceVersion}: the state this page is consistent with
 * @param continueToken      the {@code metadata.continue} token for the next page; {@code null} or empty on the last page
 * @param remainingItemCount the server's estimate of items after this page, or {@code null} when it gave none
 * @param shardSelector      the list's {@code metadata.shardInfo.selector}: the shard selector the server applied,
 *                           as it renders it; {@code null} when it applied none (asked for none, or a server
 *                           without the {@code ShardedListAndWatch} gate that ignored the parameter)
 * @param <T>                the object type
 */
public record ObjectList<T>(List<T> items, String resourceVersion, String continueToken, Long remainingItemCount,
                            String shardSelector) {

    /** A page of an unsharded list. */
    public ObjectList(List<T> items, String resourceVersion, String continueToken, Long remainingItemCount) {
        this(items, resourceVersion, continueToken, remainingItemCount, null);
    }

    public ObjectList {
        items = List.copyOf(items);
    }

    /** Whether another page follows this one. */
    public boolean hasMore() {
        return continueToken != null && !continueToken.isEmpty();
    }
}
