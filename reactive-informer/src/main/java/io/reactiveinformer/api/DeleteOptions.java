package io.reactiveinformer.api;

import java.time.Duration;

/**
 * How a DELETE proceeds (the API server's {@code DeleteOptions} body). Every field may be {@code null}
 * (the server's default).
 *
 * @param uid                the object is deleted only if its uid is this one (else 409 Conflict)
 * @param resourceVersion    the object is deleted only if its resourceVersion is this one (else 409 Conflict)
 * @param propagationPolicy  what happens to the objects this one owns
 * @param gracePeriodSeconds how long the object may take to terminate (pods); 0 deletes at once
 */
public record DeleteOptions(String uid, String resourceVersion, Propagation propagationPolicy, Long gracePeriodSeconds) {

    private static final DeleteOptions NONE = new DeleteOptions(null, null, null, null);

    /** What the garbage collector does with the dependents of a deleted object. */
    public enum Propagation {
        /** Dependents stay, their owner references to it are removed. */
        ORPHAN("Orphan"),
        /** The object goes at once, dependents after it. */
        BACKGROUND("Background"),
        /** The object stays (with a {@code foregroundDeletion} finalizer) until its blocking dependents are gone. */
        FOREGROUND("Foreground");

        private final String wireName;

        Propagation(String wireName) {
            this.wireName = wireName;
        }

        /** As the API spells it. */
        public String wireName() {
            return wireName;
        }

        /** The policy the API spells {@code name}, e.g. {@code Foreground}. */
        public static Propagation fromWireName(String name) {
            for (Propagation p : values()) {
                if (p.wireName.equals(name)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("not a propagation policy: " + name);
        }
    }

    /** The server's defaults: no preconditions, the resource's own propagation policy and grace period. */
    public static DeleteOptions none() {
        return NONE;
    }

    /** Only if the object still is the one with this uid and resourceVersion ({@code null}: not checked). */
    public DeleteOptions withPreconditions(String uid, String resourceVersion) {
        return new DeleteOptions(uid, resourceVersion, propagationPolicy, gracePeriodSeconds);
    }

    public DeleteOptions withPropagation(Propagation propagationPolicy) {
        return new DeleteOptions(uid, resourceVersion, propagationPolicy, gracePeriodSeconds);
    }

    /** The grace period, in whole seconds ({@link Duration#ZERO}: delete at once). */
    public DeleteOptions withGracePeriod(Duration gracePeriod) {
        return new DeleteOptions(uid, resourceVersion, propagationPolicy, gracePeriod.toSeconds());
    }
}
