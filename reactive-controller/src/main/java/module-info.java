/** Controllers on shared informers and work queues, with leader election and key-hash sharding on Leases. */
module io.reactiveinformer.controller {
    requires transitive io.reactiveinformer;
    requires transitive io.reactiveinformer.workqueue;
    requires org.slf4j;
    requires static micrometer.core;
    requires static micrometer.observation;

    exports io.reactiveinformer.controller;
    exports io.reactiveinformer.leaderelection;
}
