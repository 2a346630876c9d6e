/** Rate-limited, delaying, priority work queues and controllers for Project Reactor. */
module io.reactiveinformer.workqueue {
    requires transitive io.reactiveinformer;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires org.slf4j;
    requires static micrometer.core;

    exports io.reactiveinformer.workqueue;
    exports io.reactiveinformer.controller;
}
