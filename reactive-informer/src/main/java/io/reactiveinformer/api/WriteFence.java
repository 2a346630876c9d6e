package io.reactiveinformer.api;

import java.util.Objects;
import java.util.function.BooleanSupplier;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * A condition every write (any request but a GET) must meet at the moment it is sent, carried in the Reactor
 * {@code Context} of the write's subscriber. The client asks the fence twice: when the write is subscribed, and
 * again on the connection's event loop right before the request's first byte is written; if it does not admit the
 * write, the request is not sent and fails with a {@link FencedWriteException}. Reads are never fenced.
 *
 * <p>A controller puts the Lease term of each reconcile in its context this way (see
 * {@code Controller}, "Several replicas"), so a replica that was paused (a long GC, {@code SIGSTOP}, a
 * throttled container) and resumes after its term ended cannot write with the authority it no longer has,
 * even before its timers have run. What no client can recall is a request already on the wire: a write
 * admitted just before the term ended reaches the server within the network's delay after it.
 *
 * <p>{@link #admits()} runs on any thread, event loops included: it must be cheap and never block.
 */
public final class WriteFence {

    private final String authority;
    private final BooleanSupplier admits;

    private WriteFence(String authority, BooleanSupplier admits) {
        this.authority = Objects.requireNonNull(authority, "authority");
        this.admits = Objects.requireNonNull(admits, "admits");
    }

    /**
     * A fence that admits writes while {@code admits} answers true.
     *
     * @param authority what writes are made under, for the error message ("the term of Lease x")
     */
    public static WriteFence of(String authority, BooleanSupplier admits) {
        return new WriteFence(authority, admits);
    }

    /** {@code context} with this fence, replacing any other. */
    public Context putIn(Context context) {
        return context.put(WriteFence.class, this);
    }

    /** The fence of {@code context}, or null. */
    public static WriteFence in(ContextView context) {
        return context.getOrDefault(WriteFence.class, null);
    }

    /** Whether a write may be sent now. */
    public boolean admits() {
        return admits.getAsBoolean();
    }

    /** What writes under this fence are made under. */
    public String authority() {
        return authority;
    }

    @Override
    public String toString() {
        return "WriteFence[" + authority + "]";
    }
}
