/** Rate-limited, delaying and priority work queues for Project Reactor; no Kubernetes code. */
module io.reactiveinformer.workqueue {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;
    requires static micrometer.core;

    exports io.reactiveinformer.workqueue;
}
