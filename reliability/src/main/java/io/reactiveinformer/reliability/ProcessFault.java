package io.reactiveinformer.reliability;

import io.reactiveinformer.test.apiserver.KubeApiServer;

/**
 * The faults the test environment's hooks make to its processes: each returns once the hook did, that is
 * once the component is back (or, for a compaction, once every older resourceVersion answers 410).
 * Blocks its caller for that long.
 */
enum ProcessFault {
    APISERVER_RESTART("apiserver restart"),
    APISERVER_SIGKILL("apiserver SIGKILL"),
    ETCD_RESTART("etcd restart"),
    ETCD_SIGKILL("etcd SIGKILL"),
    COMPACTION("compaction (every resourceVersion expired)");

    /** How reports name it. */
    final String label;

    ProcessFault(String label) {
        this.label = label;
    }

    void inject(KubeApiServer env) {
        switch (this) {
            case APISERVER_RESTART -> env.restartApiServer();
            case APISERVER_SIGKILL -> {
                env.killApiServer();
                env.startApiServer();
            }
            case ETCD_RESTART -> env.restartEtcd();
            case ETCD_SIGKILL -> {
                env.killEtcd();
                env.startEtcd();
            }
            case COMPACTION -> env.compact();
        }
    }
}
