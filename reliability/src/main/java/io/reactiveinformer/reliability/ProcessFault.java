package io.reactiveinformer.reliability;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import java.util.List;

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
    COMPACTION("compaction (every resourceVersion expired)"),
    CONTROLLER_MANAGER_RESTART("kube-controller-manager restart"),
    CONTROLLER_MANAGER_SIGKILL("kube-controller-manager SIGKILL"),
    SCHEDULER_RESTART("kube-scheduler restart"),
    SCHEDULER_SIGKILL("kube-scheduler SIGKILL");

    /** The faults of the apiserver and etcd, which every environment has. */
    static final List<ProcessFault> OF_STORAGE = List.of(APISERVER_RESTART, APISERVER_SIGKILL, ETCD_RESTART, ETCD_SIGKILL,
            COMPACTION);
    /** The faults of the rest of a control plane ({@link KubeApiServer#hasControlPlane()}). */
    static final List<ProcessFault> OF_CONTROL_PLANE = List.of(CONTROLLER_MANAGER_RESTART, CONTROLLER_MANAGER_SIGKILL,
            SCHEDULER_RESTART, SCHEDULER_SIGKILL);

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
            case CONTROLLER_MANAGER_RESTART -> env.restartControllerManager();
            case CONTROLLER_MANAGER_SIGKILL -> {
                env.killControllerManager();
                env.startControllerManager();
            }
            case SCHEDULER_RESTART -> env.restartScheduler();
            case SCHEDULER_SIGKILL -> {
                env.killScheduler();
                env.startScheduler();
            }
        }
    }
}
