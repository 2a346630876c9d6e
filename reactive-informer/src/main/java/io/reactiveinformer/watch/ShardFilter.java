package io.reactiveinformer.watch;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.ShardSelector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a sharded reflector deliver exactly its shard whether or not the server applies the shard selector
 * (KEP-5866 asks clients to check; a server without the {@code ShardedListAndWatch} gate ignores the
 * parameter and returns everything).
 *
 * <p>A LIST tells: the server echoes the selector it applied in {@code metadata.shardInfo.selector}, rendered
 * as {@link ShardSelector#toString()} renders it. With the echo, the server filters lists and watches and
 * this filter passes everything; without it (or with another selector) the objects outside the shard are
 * dropped here, with the same hash. A streaming list and a watch carry no echo: before any LIST has
 * answered, objects are checked, and one outside the shard proves the server ignores the selector. uid and
 * namespace are immutable, so an object never changes shard: a dropped MODIFIED or DELETED event is one of
 * an object this reflector never delivered. What was found about the server holds when the selector
 * changes ({@link #select}). Touched only from the reflector's serialized signals.
 */
final class ShardFilter {

    private static final Logger log = LoggerFactory.getLogger(Reflector.class);

    private enum Server { UNKNOWN, APPLIES, IGNORES }

    private final String name;
    private ShardSelector selector;
    private Server server = Server.UNKNOWN;
    private boolean warned;

    /** @param selector the shard asked for, or {@code null} for no sharding (everything passes) */
    ShardFilter(String name, ShardSelector selector) {
        this.name = name;
        this.selector = selector;
    }

    /** From now on the shard is {@code selector} ({@code null}: no sharding). */
    void select(ShardSelector selector) {
        this.selector = selector;
    }

    /** A LIST came back with this {@code shardInfo.selector} ({@code null}: none, on some page). */
    void listed(String echo) {
        if (selector == null) {
            return;
        }
        if (selector.toString().equals(echo)) {
            server = Server.APPLIES;
        } else {
            ignored(echo == null ? "the list response has no shardInfo" : "the server echoed \"" + echo + "\"");
        }
    }

    /** Whether {@code object} belongs to the shard as far as this reflector can tell. */
    boolean keep(KubernetesObject object) {
        if (selector == null || server == Server.APPLIES) {
            return true;
        }
        if (selector.matches(object)) {
            return true;
        }
        if (server == Server.UNKNOWN) {
            ignored("a streaming list or watch delivered an object outside the shard");
        }
        return false;
    }

    /** Whether the server was found to ignore the selector, so the objects outside it are dropped here. */
    boolean filteringLocally() {
        return server == Server.IGNORES;
    }

    private void ignored(String evidence) {
        server = Server.IGNORES;
        // Once per reflector: a server without the gate stays so, and every relist would say it again.
        if (!warned) {
            warned = true;
            log.warn("{}: server-side sharding unsupported ({}; is the ShardedListAndWatch feature gate off?): "
                    + "filtering locally on {}; the cache holds the shard only, but every object is still "
                    + "received and decoded", name, evidence, selector);
        }
    }
}
