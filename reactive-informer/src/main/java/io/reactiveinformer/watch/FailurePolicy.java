package io.reactiveinformer.watch;

import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.TransportException;
import java.time.Duration;
import java.util.Optional;
import reactor.core.Exceptions;

/**
 * How a reflector reacts to an attempt that failed or ended: which step comes next (re-watch or relist),
 * after which kind of delay, what becomes of the "resourceVersion unavailable" flag, and whether the
 * connection counts as lost for the {@link StoreRollbackDetector}. Pure: {@link ReflectorRun} applies the
 * {@link Decision}s, turning their {@link Delay} into a duration with its {@link BackoffTimer}.
 */
final class FailurePolicy {

    /** A watch closing this soon without any event means something is wrong (client-go: relist). */
    static final Duration SHORT_WATCH = Duration.ofSeconds(1);
    /** A watch the server ends this much before the timeout it was asked for was ended for another reason. */
    static final Duration EARLY_CLOSE_SLACK = Duration.ofSeconds(1);
    private static final String CAUSE_RESOURCE_VERSION_TOO_LARGE = "ResourceVersionTooLarge";

    private FailurePolicy() {
    }

    /** The delay before the next attempt. */
    enum Delay {
        /** Retry at once. */
        NONE,
        /** The backoff's initial delay, jittered, whatever earlier failures made of it: the server asked for it. */
        INITIAL,
        /** The next backoff, or the server's Retry-After (see {@link #retryAfter}) if longer: the server is unwell. */
        RETRY
    }

    /**
     * What to do after a failure.
     *
     * @param next                         the next step
     * @param delay                        before it
     * @param resourceVersionUnavailable   the flag's new value: whether the next list must start from {@code ""}
     * @param connectionLost               whether to tell the {@link StoreRollbackDetector} the connection was lost
     */
    record Decision(ReflectorRun.Step next, Delay delay, boolean resourceVersionUnavailable, boolean connectionLost) {
    }

    /** How a watch the server closed normally ended. */
    enum WatchClose {
        /** Within {@link #SHORT_WATCH} and without an event: suspicious; relist after the backoff. */
        TOO_SHORT,
        /** Before the timeout asked for: a restarting server or a re-initialized watch cache; re-watch. */
        EARLY,
        /** At the timeout asked for; re-watch. */
        TIMED_OUT
    }

    /**
     * After a LIST (or a streaming list) from {@code requestedVersion} failed: list again. A version the server
     * cannot serve makes the next list start from {@code ""}, at once unless this one already did.
     */
    static Decision afterList(KubernetesClientException error, String requestedVersion, boolean unavailable) {
        if (isResourceVersionUnavailable(error)) {
            return new Decision(ReflectorRun.Step.LIST, requestedVersion.isEmpty() ? Delay.RETRY : Delay.NONE, true,
                    false);
        }
        return new Decision(ReflectorRun.Step.LIST, Delay.RETRY, unavailable, false);
    }

    /**
     * After a watch failed. A healthy server that answered that our version is out of its window (compacted away,
     * or not reached yet) gets a relist after the initial delay, not after the backoff that earlier outages grew
     * (up to a minute, and the cache stale all that time); a version it has not reached is relisted from
     * {@code ""}. A failure that says nothing about the state we hold re-watches (and the connection was lost);
     * anything else relists.
     */
    static Decision afterWatch(KubernetesClientException error, boolean unavailable) {
        if (isResourceVersionUnavailable(error)) {
            return new Decision(ReflectorRun.Step.LIST, Delay.INITIAL, !(error instanceof KubernetesApiException.Gone),
                    false);
        }
        boolean rewatch = canRewatch(error);
        return new Decision(rewatch ? ReflectorRun.Step.WATCH : ReflectorRun.Step.LIST, Delay.RETRY, unavailable,
                rewatch);
    }

    /** How a watch that lasted {@code lastedMillis}, with {@code events} events, of {@code timeoutMillis} asked for, ended. */
    static WatchClose watchClosed(long lastedMillis, int events, long timeoutMillis) {
        if (events == 0 && lastedMillis < SHORT_WATCH.toMillis()) {
            return WatchClose.TOO_SHORT;
        }
        return closedEarly(lastedMillis, timeoutMillis) ? WatchClose.EARLY : WatchClose.TIMED_OUT;
    }

    /**
     * Whether a streaming list closed before its initial events ended shows that the server ignores
     * {@code sendInitialEvents}: such a server serves it as a plain watch until the timeout asked for, so only
     * that gives up streaming for good; one ended sooner (a restart, a cut connection) does not.
     */
    static boolean streamingListIgnored(long lastedMillis, long timeoutMillis) {
        return !closedEarly(lastedMillis, timeoutMillis);
    }

    private static boolean closedEarly(long lastedMillis, long timeoutMillis) {
        return lastedMillis + EARLY_CLOSE_SLACK.toMillis() < timeoutMillis;
    }

    /**
     * A refusal of a streaming list itself (400, 422, ...), not of access to the resource nor of the version:
     * the server does not support it; fall back to LIST.
     */
    static boolean rejectsStreamingList(KubernetesClientException error) {
        return error instanceof KubernetesApiException
                && !error.isRetriable()
                && !(error instanceof KubernetesApiException.Unauthorized)
                && !(error instanceof KubernetesApiException.Forbidden)
                && !(error instanceof KubernetesApiException.NotFound)
                && !(error instanceof KubernetesApiException.Gone);
    }

    /** Failures that say nothing about the state we hold: the server or the path to it is unwell. */
    static boolean canRewatch(KubernetesClientException error) {
        if (isResourceVersionUnavailable(error)) {
            return false;
        }
        return error instanceof KubernetesApiException.TooManyRequests
                || error instanceof KubernetesApiException.ServerError
                || error instanceof TransportException
                || error instanceof ReflectorException r && r.reason() == ReflectorException.Reason.WATCH_IDLE;
    }

    /** 410 Gone/Expired, or a version newer than the server has seen (client-go: "too large resource version"). */
    static boolean isResourceVersionUnavailable(KubernetesClientException error) {
        if (error instanceof KubernetesApiException.Gone) {
            return true;
        }
        if (!(error instanceof KubernetesApiException api) || api.code() != 504) {
            return false;
        }
        Optional<V1Status> status = api.status();
        boolean tooLargeCause = status.map(V1Status::getDetails)
                .map(V1StatusDetails::getCauses)
                .map(causes -> causes.stream().map(V1StatusCause::getReason)
                        .anyMatch(CAUSE_RESOURCE_VERSION_TOO_LARGE::equals))
                .orElse(false);
        return tooLargeCause || status.map(V1Status::getMessage)
                .map(message -> message.contains("Too large resource version"))
                .orElse(false);
    }

    /** The server's non-negative Retry-After, bounded by {@code cap}; empty when it sent none. */
    static Optional<Duration> retryAfter(KubernetesClientException error, Duration cap) {
        if (!(error instanceof KubernetesApiException api)) {
            return Optional.empty();
        }
        return api.retryAfter().filter(d -> !d.isNegative()).map(d -> d.compareTo(cap) > 0 ? cap : d);
    }

    /** JVM errors (and BlockHound's) must surface, not be retried. */
    static boolean recoverable(Throwable error) {
        return error instanceof Exception;
    }

    /** The failure as the client exception it should be; anything else is the lister-watcher's bug. */
    static KubernetesClientException clientException(Throwable error) {
        Throwable unwrapped = Exceptions.unwrap(error);
        if (unwrapped instanceof KubernetesClientException clientException) {
            return clientException;
        }
        return new ReflectorException(ReflectorException.Reason.UNEXPECTED_ERROR,
                "the lister-watcher failed with " + unwrapped, unwrapped);
    }
}
