package io.reactiveinformer.reliability;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The soak's churn: changes to ConfigMaps at a target rate with a population that stays level, so that
 * a flat heap means no leak rather than no growth ({@code Churn} creates more than it deletes, which
 * suits short tests, not an hour).
 *
 * <p>Each change picks one of {@code slots} names per namespace at random: a create when the name is
 * not live, else an update (70 %, a new annotation and payload) or a delete (30 %), so about 77 % of the
 * names are live at any time. A name is live once the server acknowledged its create; two changes to one
 * name in flight at once may be refused (409 or 404), which is counted, as are changes the server refused
 * while it was down. Half of the objects are labelled {@code half=a}, half {@code half=b}, for the
 * label-selected informers.
 *
 * <p>Threading: ticks of {@link Flux#interval} on {@link Schedulers#parallel()}, requests on the client's
 * event loops; at most {@code maxInFlight} changes are in flight, ticks that find them all busy are
 * skipped, so the achieved rate is what the server sustained, never more than the target.
 */
final class SoakWriter {

    private static final String PAYLOAD = "x".repeat(200);

    private final KubernetesClient client;
    private final List<String> namespaces;
    private final int slots;
    private final int rate;
    private final int maxInFlight;
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final AtomicLong made = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile Disposable running;

    SoakWriter(KubernetesClient client, List<String> namespaces, int slots, int rate, int maxInFlight) {
        this.client = client;
        this.namespaces = namespaces;
        this.slots = slots;
        this.rate = rate;
        this.maxInFlight = maxInFlight;
    }

    /** Starts changing; {@link #pause()} stops it. */
    void resume() {
        running = Flux.interval(Duration.ofNanos(1_000_000_000L / rate), Schedulers.parallel())
                .onBackpressureDrop(tick -> skipped.incrementAndGet())
                .flatMap(tick -> change(), maxInFlight)
                .subscribe();
    }

    /** Stops drawing changes; the ones in flight are cancelled (the server may still make them). */
    void pause() {
        Disposable r = running;
        if (r != null) {
            r.dispose();
        }
    }

    long made() {
        return made.get();
    }

    long refused() {
        return refused.get();
    }

    long skipped() {
        return skipped.get();
    }

    int inFlight() {
        return inFlight.get();
    }

    private Mono<Void> change() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String namespace = namespaces.get(random.nextInt(namespaces.size()));
        int slot = random.nextInt(slots);
        String name = "soak-" + slot;
        String key = namespace + "/" + name;
        var maps = client.resource(V1ConfigMap.class).inNamespace(namespace);
        Mono<?> request;
        if (!live.contains(key)) {
            request = maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                            .metadata(new V1ObjectMeta().name(name).namespace(namespace)
                                    .labels(Map.of("soak", "true", "half", slot % 2 == 0 ? "a" : "b")))
                            .data(Map.of("payload", PAYLOAD)))
                    .doOnSuccess(created -> live.add(key));
        } else if (random.nextInt(10) < 7) {
            long step = made.get();
            request = maps.patch(name, PatchType.MERGE, "{\"metadata\":{\"annotations\":{\"soak/step\":\"" + step
                    + "\"}},\"data\":{\"payload\":\"" + step + PAYLOAD.substring(Long.toString(step).length()) + "\"}}");
        } else {
            request = maps.delete(name).doOnSuccess(deleted -> live.remove(key));
        }
        return Mono.defer(() -> {
                    inFlight.incrementAndGet();
                    return request;
                })
                .doOnSuccess(done -> made.incrementAndGet())
                .onErrorResume(KubernetesClientException.class, e -> {
                    refused.incrementAndGet();
                    if (e instanceof KubernetesApiException.NotFound) {
                        live.remove(key);
                    } else if (e instanceof KubernetesApiException.Conflict) {
                        live.add(key);
                    }
                    return Mono.empty();
                })
                .doFinally(signal -> inFlight.decrementAndGet())
                .then();
    }
}
