package io.reactiveinformer.examples;

/**
 * Placeholder for the main-job example: the pod watcher arrives with the shared informer.
 */
public final class PodWatcher {

    private PodWatcher() {
    }

    public static void main(String[] args) {
        System.out.println("Reactive Informer: the pod watcher example is not built yet (placeholder).");
    }
}
