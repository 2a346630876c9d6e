package io.reactiveinformer.config;

import java.nio.file.Path;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where the bearer token of each request comes from. A static token, a token file re-read as it
 * rotates, or an exec credential plugin re-run when its credential expires.
 *
 * <p>Threading: {@link #bearerToken()} answers on the calling thread while the cached token is valid;
 * reading a file or running a plugin happens on {@link Schedulers#boundedElastic()}, never on the
 * caller's thread (which may be a Netty event loop), and the token is then emitted there.
 */
public interface Credentials {

    /** The token for the next request; empty for anonymous requests. Errors are {@link ConfigException}s. */
    Mono<String> bearerToken();

    /**
     * The server refused {@code token} (HTTP 401): if it is still the cached one, forget it so the next
     * {@link #bearerToken()} reads the file or runs the plugin again.
     */
    default void invalidate(String token) {
    }

    /** No token: anonymous, or authenticated by a client certificate. */
    static Credentials none() {
        return Mono::empty;
    }

    /** A fixed token. */
    static Credentials bearer(String token) {
        Objects.requireNonNull(token, "token");
        Mono<String> value = Mono.just(token);
        return () -> value;
    }

    /**
     * A token file (a projected service-account token), re-read once the cached token is a minute
     * old, or at once after a 401.
     *
     * @param clock the scheduler whose {@code now()} ages the cached token (a test passes a virtual one)
     */
    static Credentials tokenFile(Path file, Scheduler clock) {
        return new TokenFileCredentials(file, clock);
    }
}
