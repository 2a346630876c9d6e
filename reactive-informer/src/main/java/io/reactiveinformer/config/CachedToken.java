package io.reactiveinformer.config;

import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A token fetched by a blocking call (a file read, a process run), kept until it is due for renewal.
 * The fetch runs on boundedElastic; concurrent callers that all find the token due serialise there,
 * so only the first one fetches.
 */
abstract class CachedToken implements Credentials {

    /** A fetched token and the clock time (epoch millis) after which it must be fetched again. */
    record Token(String value, long renewAtMillis) {
    }

    private final Scheduler clock;
    /**
     * Serialises refreshes (held across the blocking fetch, on boundedElastic). Private, not this
     * object's monitor: the credentials are handed to users.
     */
    private final Object refreshLock = new Object();
    private volatile Token current;

    CachedToken(Scheduler clock) {
        this.clock = clock;
    }

    /** Blocking: fetches a fresh token. Runs on boundedElastic. */
    abstract Token fetch(long nowMillis);

    @Override
    public final Mono<String> bearerToken() {
        return Mono.defer(() -> {
            Token token = current;
            if (isValid(token)) {
                return Mono.just(token.value());
            }
            return Mono.fromCallable(this::refresh).subscribeOn(Schedulers.boundedElastic());
        });
    }

    @Override
    public final void invalidate(String token) {
        Token cached = current;
        if (cached != null && cached.value().equals(token)) {
            synchronized (refreshLock) {
                if (current == cached) {
                    current = null;
                }
            }
        }
    }

    private String refresh() {
        synchronized (refreshLock) {
            Token token = current;
            if (!isValid(token)) {
                token = fetch(clock.now(TimeUnit.MILLISECONDS));
                current = token;
            }
            return token.value();
        }
    }

    private boolean isValid(Token token) {
        return token != null && clock.now(TimeUnit.MILLISECONDS) < token.renewAtMillis();
    }
}
