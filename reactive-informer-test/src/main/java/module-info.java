/** JUnit 5 extensions: a simulated API server per test, and a real kube-apiserver for e2e tests. */
module io.reactiveinformer.test.junit {
    requires transitive io.reactiveinformer.test;
    requires transitive org.junit.jupiter.api;

    exports io.reactiveinformer.test.junit;
}
