package io.reactiveinformer.watch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.DecodeException;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.api.WatchEvent;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Objects, pages, events and errors for reflector tests. */
final class Fixtures {

    /**
     * The default options but LIST instead of a streaming list: for the tests of the LIST path, whose
     * {@link ScriptedListerWatcher} scripts the answers of LISTs ({@link ScriptedListerWatcher#listReturns}).
     */
    static final ReflectorOptions LISTING = ReflectorOptions.defaults().withStreamingList(false);

    static final String REQUEST = "GET /api/v1/namespaces/default/configmaps";

    private Fixtures() {
    }

    static V1ConfigMap cm(String name, String resourceVersion) {
        return new V1ConfigMap().metadata(new V1ObjectMeta().namespace("default").name(name)
                .resourceVersion(resourceVersion));
    }

    static ObjectList<V1ConfigMap> page(String resourceVersion, String continueToken, V1ConfigMap... items) {
        return new ObjectList<>(List.of(items), resourceVersion, continueToken, null);
    }

    static WatchEvent<V1ConfigMap> added(V1ConfigMap object) {
        return new WatchEvent<>(WatchEvent.Type.ADDED, object);
    }

    static WatchEvent<V1ConfigMap> modified(V1ConfigMap object) {
        return new WatchEvent<>(WatchEvent.Type.MODIFIED, object);
    }

    static WatchEvent<V1ConfigMap> deleted(V1ConfigMap object) {
        return new WatchEvent<>(WatchEvent.Type.DELETED, object);
    }

    static WatchEvent<V1ConfigMap> bookmark(String resourceVersion) {
        return new WatchEvent<>(WatchEvent.Type.BOOKMARK,
                new V1ConfigMap().metadata(new V1ObjectMeta().resourceVersion(resourceVersion)));
    }

    static WatchEvent<V1ConfigMap> initialEventsEnd(String resourceVersion) {
        return new WatchEvent<>(WatchEvent.Type.BOOKMARK, new V1ConfigMap().metadata(new V1ObjectMeta()
                .resourceVersion(resourceVersion).annotations(Map.of("k8s.io/initial-events-end", "true"))));
    }

    /** A watch that sends the events and then stays open. */
    @SafeVarargs
    static Flux<WatchEvent<V1ConfigMap>> open(WatchEvent<V1ConfigMap>... events) {
        return Flux.just(events).concatWith(Flux.never());
    }

    /** A watch that sends the events and then, after {@code after}, is closed normally by the server. */
    @SafeVarargs
    static Flux<WatchEvent<V1ConfigMap>> closing(Duration after, Scheduler scheduler,
                                                 WatchEvent<V1ConfigMap>... events) {
        return Flux.just(events).concatWith(Flux.<WatchEvent<V1ConfigMap>>empty().delaySubscription(after, scheduler));
    }

    /** A watch that sends the events and then fails. */
    @SafeVarargs
    static Flux<WatchEvent<V1ConfigMap>> failing(Throwable error, WatchEvent<V1ConfigMap>... events) {
        return Flux.just(events).concatWith(Flux.error(error));
    }

    static KubernetesApiException api(int code) {
        return KubernetesApiException.of(REQUEST, code, null, null);
    }

    static KubernetesApiException gone() {
        return KubernetesApiException.of(REQUEST, 410, new V1Status().code(410).reason("Expired")
                .message("too old resource version"), null);
    }

    static KubernetesApiException tooLargeResourceVersion() {
        return KubernetesApiException.of(REQUEST, 504, new V1Status().code(504).reason("Timeout")
                .message("Too large resource version")
                .details(new V1StatusDetails().addCausesItem(new V1StatusCause().reason("ResourceVersionTooLarge"))),
                null);
    }

    static KubernetesApiException tooManyRequests(Duration retryAfter) {
        return KubernetesApiException.of(REQUEST, 429, null, retryAfter);
    }

    static TransportException connectionRefused() {
        return new TransportException(REQUEST + ": connection refused", new ConnectException("Connection refused"));
    }

    static DecodeException decodeError() {
        return new DecodeException(REQUEST + ": unexpected end of input at byte 1234", null);
    }

    /** Asserts a {@link ReflectorEvent.Failed} of the given error type, count and delay. */
    static Consumer<ReflectorEvent<V1ConfigMap>> failed(Class<? extends Throwable> errorType, int consecutiveFailures,
                                                        Duration retryIn) {
        return event -> assertThat(event).isInstanceOfSatisfying(ReflectorEvent.Failed.class, failed -> {
            assertThat(failed.error()).isInstanceOf(errorType);
            assertThat(failed.consecutiveFailures()).as("consecutive failures").isEqualTo(consecutiveFailures);
            assertThat(failed.retryIn()).as("retry in").isEqualTo(retryIn);
        });
    }

    /** Asserts a failure the reflector detected itself. */
    static Consumer<ReflectorEvent<V1ConfigMap>> failed(ReflectorException.Reason reason, int consecutiveFailures,
                                                        Duration retryIn) {
        return failed(ReflectorException.class, consecutiveFailures, retryIn).andThen(event -> assertThat(
                ((ReflectorException) ((ReflectorEvent.Failed<?>) event).error()).reason()).isEqualTo(reason));
    }

    /** A reflector with pinned randomness on the given virtual clock. */
    static Reflector<V1ConfigMap> reflector(ScriptedListerWatcher<V1ConfigMap> lw, VirtualTimeScheduler scheduler,
                                            double random, ReflectorOptions options) {
        return Reflector.builder(lw).name("test/configmaps").options(options).scheduler(scheduler)
                .random(() -> random).build();
    }

    /** A reflector with pinned randomness on the given virtual clock that lists with LIST ({@link #LISTING}). */
    static Reflector<V1ConfigMap> reflector(ScriptedListerWatcher<V1ConfigMap> lw, VirtualTimeScheduler scheduler) {
        return reflector(lw, scheduler, 0.0, LISTING);
    }
}
