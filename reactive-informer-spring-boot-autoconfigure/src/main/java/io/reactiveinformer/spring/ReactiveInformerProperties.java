package io.reactiveinformer.spring;

import io.reactiveinformer.informer.BufferPolicy;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code reactive-informer.*}: where the cluster is, what informers watch by default, and how the
 * application's lifecycle and SSE streams treat them.
 */
@ConfigurationProperties("reactive-informer")
public class ReactiveInformerProperties {

    /** Kubeconfig file; unset: what kubectl would use ($KUBECONFIG, ~/.kube/config, in-cluster). */
    private Path kubeconfig;
    /** Kubeconfig context; unset: the current context. */
    private String context;
    /**
     * Namespace that informers of namespaced resources watch when they name none; unset: the
     * kubeconfig context's namespace if it sets one, else all namespaces; "*" for all namespaces.
     */
    private String namespace;
    /** Limit for one non-watch request; unset: the library's default (60 s). */
    private Duration requestTimeout;
    /** LIST page size; unset: the library's default (500). */
    private Integer pageSize;
    /**
     * Whether lists are streamed over the watch (Kubernetes 1.32+); on a server without it the informers fall back
     * to LIST by themselves. False: always LIST.
     */
    private boolean streamingList = true;
    /** Resync period of every informer; zero: none. */
    private Duration resyncPeriod = Duration.ZERO;
    /** How the buffers of SSE subscribers hold pending notifications. */
    private BufferPolicy bufferPolicy = BufferPolicy.COALESCE;
    /** Whether startup waits for every informer to sync (the application refreshes only then). */
    private boolean waitForSync;
    /** How long startup waits for the sync when wait-for-sync is set; startup fails after it. */
    private Duration syncTimeout = Duration.ofSeconds(60);
    /** How long a controller may take to drain on shutdown before it is stopped at once. */
    private Duration controllerShutdownTimeout = Duration.ofSeconds(10);

    private final Sse sse = new Sse();
    private final Simulated simulated = new Simulated();

    /** Server-sent event streams made by {@link InformerSse}. */
    public static class Sse {

        /** Interval of the heartbeat comments; they keep proxies open and detect aborted clients. */
        private Duration heartbeat = Duration.ofSeconds(15);
        /**
         * A stream whose client has asked for nothing (not even a heartbeat) for this long, its connection's
         * buffers full, is ended and its connection closed (see InformerSse).
         */
        private Duration idleTimeout = Duration.ofSeconds(60);

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public Duration getIdleTimeout() {
            return idleTimeout;
        }

        public void setIdleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }
    }

    /** The embedded simulated API server (needs {@code reactive-informer-test-core}): demos and tests. */
    public static class Simulated {

        /** Run a simulated API server in the application and point the client at it. */
        private boolean enabled;
        /** Run the SSE helper's timers on a reactor-test VirtualTimeScheduler bean that a test advances. */
        private boolean virtualTime;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isVirtualTime() {
            return virtualTime;
        }

        public void setVirtualTime(boolean virtualTime) {
            this.virtualTime = virtualTime;
        }
    }

    public Path getKubeconfig() {
        return kubeconfig;
    }

    public void setKubeconfig(Path kubeconfig) {
        this.kubeconfig = kubeconfig;
    }

    public String getContext() {
        return context;
    }

    public void setContext(String context) {
        this.context = context;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getRequestTimeout() {
        return requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Integer getPageSize() {
        return pageSize;
    }

    public void setPageSize(Integer pageSize) {
        this.pageSize = pageSize;
    }

    public boolean isStreamingList() {
        return streamingList;
    }

    public void setStreamingList(boolean streamingList) {
        this.streamingList = streamingList;
    }

    public Duration getResyncPeriod() {
        return resyncPeriod;
    }

    public void setResyncPeriod(Duration resyncPeriod) {
        this.resyncPeriod = resyncPeriod;
    }

    public BufferPolicy getBufferPolicy() {
        return bufferPolicy;
    }

    public void setBufferPolicy(BufferPolicy bufferPolicy) {
        this.bufferPolicy = bufferPolicy;
    }

    public boolean isWaitForSync() {
        return waitForSync;
    }

    public void setWaitForSync(boolean waitForSync) {
        this.waitForSync = waitForSync;
    }

    public Duration getSyncTimeout() {
        return syncTimeout;
    }

    public void setSyncTimeout(Duration syncTimeout) {
        this.syncTimeout = syncTimeout;
    }

    public Duration getControllerShutdownTimeout() {
        return controllerShutdownTimeout;
    }

    public void setControllerShutdownTimeout(Duration controllerShutdownTimeout) {
        this.controllerShutdownTimeout = controllerShutdownTimeout;
    }

    public Sse getSse() {
        return sse;
    }

    public Simulated getSimulated() {
        return simulated;
    }
}
