package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ShardSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import tools.jackson.databind.node.ObjectNode;

/**
 * LIST of one page, as the real server serves it: which version a request reads, the objects of a
 * resource at that version, selectors, and continue tokens that resume at the first page's version.
 * Called with the state's lock held.
 */
final class ListPaginator {

    private ListPaginator() {
    }

    /**
     * {@code resourceVersion} unset or {@code ""}: the latest state; {@code "0"}: the latest state,
     * unpaginated (the limit is ignored, as the watch cache does); {@code N}: the latest state if at
     * least {@code N} (else 504 "Too large resource version"), or with {@code resourceVersionMatch=Exact}
     * the state at exactly {@code N} (410 when compacted). A continue token lists at its first page's
     * version, or fails with 410 once that is compacted.
     */
    static ListResult page(Kind kind, long current, String namespace, ListOptions options) {
        Selector labels = Selector.labels(options.labelSelector());
        Selector fields = Selector.fields(kind.type, options.fieldSelector());
        ShardSelector shard = options.shardSelector();
        String ns = kind.type.namespaced() && namespace != null && !namespace.isEmpty() ? namespace : null;
        String rvParam = options.resourceVersion();
        Integer limit = options.limit();
        long compactedTo = kind.history.compactedTo();
        long at;
        String start = null;
        if (options.continueToken() != null && !options.continueToken().isEmpty()) {
            ContinueToken token = ContinueToken.decode(options.continueToken());
            if (token.resourceVersion() < compactedTo) {
                throw ApiError.continueExpired();
            }
            at = token.resourceVersion();
            start = token.start();
        } else if (rvParam == null || rvParam.isEmpty()) {
            at = current;
        } else if (rvParam.equals("0")) {
            at = current;
            limit = null;
        } else {
            long requested = ResourceVersions.parse(rvParam);
            if (requested > current) {
                throw ApiError.tooLarge(requested, current);
            }
            if ("Exact".equals(options.resourceVersionMatch())) {
                if (requested < compactedTo) {
                    throw ApiError.tooOld(requested, compactedTo + 1);
                }
                at = requested;
            } else {
                at = current;
            }
        }
        NavigableMap<String, ObjectNode> snapshot = kind.objects;
        if (at != current) {
            TreeMap<String, ObjectNode> older = new TreeMap<>(kind.objects);
            kind.history.undo(older, at);
            snapshot = older;
        }
        if (start != null) {
            snapshot = snapshot.tailMap(start, true);
        }
        List<ObjectNode> items = new ArrayList<>();
        int max = limit == null || limit <= 0 ? Integer.MAX_VALUE : limit;
        int count = 0;
        String lastKey = null;
        for (Map.Entry<String, ObjectNode> e : snapshot.entrySet()) {
            ObjectNode obj = e.getValue();
            if (ns != null && !ns.equals(obj.path("metadata").path("namespace").asString(""))) {
                continue;
            }
            if (!labels.matches(obj) || !fields.matches(obj)
                    || shard != null && !ShardSelectorParser.matches(shard, obj)) {
                continue;
            }
            if (items.size() == max) {
                count++;
                continue;
            }
            items.add(obj);
            lastKey = e.getKey();
        }
        String continueToken = null;
        Long remaining = null;
        if (count > 0) {
            continueToken = new ContinueToken(at, lastKey + "\u0000").encode();
            // with a shard selector, the real server counts the unfiltered keys left (its predicate's Empty()
            // ignores the shard): a number the client cannot use, so none here
            remaining = labels.isEverything() && fields.isEverything() && shard == null ? (long) count : null;
        }
        return new ListResult(items, Long.toString(at), continueToken, remaining,
                shard == null ? null : shard.toString());
    }
}
