package io.reactiveinformer.e2e.leader;

import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import io.reactiveinformer.watch.ReflectorOptions;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link ShardedCachesContract} on a server that ignores shard selectors: the test kit's simulated server with
 * the {@code ShardedListAndWatch} gate off, as an older kube-apiserver or one without the gate.
 */
class ShardedCachesWithoutServerShardingTest extends ShardedCachesContract {

    private final SimulatedApiServer server = SimulatedApiServer.start(
            ClusterState.builder().shardedListAndWatch(false).build());

    @Override
    ClientConfig config() {
        return server.clientConfig();
    }

    @Override
    boolean serverFilters() {
        return false;
    }

    /**
     * LIST: the simulated server encodes a streaming list's initial events one by one on its Netty event loop,
     * which the event-loop stall guard flags (394 ms under load); kube-apiserver streams them in the other test.
     */
    @Override
    ReflectorOptions reflectorOptions() {
        return ReflectorOptions.defaults().withStreamingList(false);
    }

    @AfterAll
    void stopServer() {
        server.close();
    }
}
