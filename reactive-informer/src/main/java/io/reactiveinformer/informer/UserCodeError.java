package io.reactiveinformer.informer;

import java.util.Objects;

/**
 * User code failed for one object, and the informer carried on: what {@link SharedIndexInformer#userCodeErrors()}
 * signals. The informer never stops for one: see {@link Stage} for what happened to the object.
 *
 * @param informer the informer's name
 * @param stage    which user code failed
 * @param key      the object's key, or what identifies the call ({@code null} when unknown)
 * @param detail   the index name for {@link Stage#INDEX}, the subscriber name for {@link Stage#HANDLER},
 *                 the hook for {@link Stage#METRICS}; {@code null} otherwise
 * @param error    what it threw
 */
public record UserCodeError(String informer, Stage stage, String key, String detail, Throwable error) {

    public UserCodeError {
        Objects.requireNonNull(informer, "informer");
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(error, "error");
    }

    /** Where the user code ran, and what the informer did instead. */
    public enum Stage {
        /** The spec's transform threw or returned an object with another key: the object is cached untransformed. */
        TRANSFORM,
        /** An object from the server has no name, so it cannot be keyed: it is left out of the cache. */
        KEY,
        /** An index function threw: the object is cached but not under that index. */
        INDEX,
        /** An {@link InformerMetrics} hook threw: the measurement is lost, nothing else. */
        METRICS,
        /** A subscriber's handler threw: that subscriber is ended with the error; the others go on. */
        HANDLER
    }
}
