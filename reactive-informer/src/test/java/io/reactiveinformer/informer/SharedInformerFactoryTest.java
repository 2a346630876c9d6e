package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ObjectList;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.watch.Backoff;
import io.reactiveinformer.watch.ListerWatcher;
import io.reactiveinformer.watch.ReflectorOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class SharedInformerFactoryTest {

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();

    /** Serves one object per (type, namespace); config maps are forbidden when {@code forbidConfigMaps}. */
    private final class Source implements ListerWatcherSource {
        final List<String> requested = new CopyOnWriteArrayList<>();
        final AtomicInteger openWatches = new AtomicInteger();
        volatile boolean forbidConfigMaps;

        @Override
        public <T extends KubernetesObject> ListerWatcher<T> listerWatcher(Class<T> type, String namespace,
                                                                          String labelSelector, String fieldSelector) {
            requested.add(type.getSimpleName() + "/" + namespace + "/" + labelSelector + "/" + fieldSelector);
            return new ListerWatcher<>() {
                @Override
                public Mono<ObjectList<T>> list(ListOptions options) {
                    if (type == V1ConfigMap.class && forbidConfigMaps) {
                        return Mono.error(KubernetesApiException.of("GET /api/v1/configmaps", 403, null, null));
                    }
                    return Mono.fromCallable(() -> new ObjectList<>(List.of(object(new V1ObjectMeta()
                            .namespace(namespace == null ? "default" : namespace).name("one").resourceVersion("3"))),
                            "3", null, null));
                }

                /** A streaming list answers what a LIST does, then goes on as a watch without events. */
                @Override
                public Flux<WatchEvent<T>> watch(WatchOptions options) {
                    Flux<WatchEvent<T>> initial = !options.sendInitialEvents() ? Flux.empty()
                            : list(ListOptions.none()).flatMapMany(page -> Flux.fromIterable(page.items())
                                    .map(item -> new WatchEvent<>(WatchEvent.Type.ADDED, item))
                                    .concatWith(Mono.fromCallable(() -> new WatchEvent<>(WatchEvent.Type.BOOKMARK,
                                            object(new V1ObjectMeta().resourceVersion(page.resourceVersion())
                                                    .annotations(Map.of("k8s.io/initial-events-end", "true")))))));
                    return initial.concatWith(Flux.never())
                            .doOnSubscribe(s -> openWatches.incrementAndGet())
                            .doOnCancel(openWatches::decrementAndGet);
                }

                private T object(V1ObjectMeta metadata) throws ReflectiveOperationException {
                    T object = type.getDeclaredConstructor().newInstance();
                    type.getMethod("setMetadata", V1ObjectMeta.class).invoke(object, metadata);
                    return object;
                }
            };
        }

        @Override
        public ListerWatcher<PartialObjectMetadata> metadataListerWatcher(ResourceType<PartialObjectMetadata> resource,
                                                                          String namespace, String labelSelector,
                                                                          String fieldSelector) {
            requested.add("metadata of " + resource.plural() + "/" + namespace);
            return listerWatcher(PartialObjectMetadata.class, namespace, labelSelector, fieldSelector);
        }
    }

    private final Source source = new Source();
    private final SharedInformerFactory factory = SharedInformerFactory.builder(source)
            .scheduler(time)
            .reflectorOptions(ReflectorOptions.defaults().withBackoff(Backoff.defaults().withJitter(0)))
            .syncFailureThreshold(2)
            .build();

    @Test
    void oneInformerPerIdentity() {
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        assertThat(factory.informer(V1Pod.class)).isSameAs(pods);
        assertThat(factory.informer(InformerSpec.of(V1Pod.class))).isSameAs(pods);
        SharedIndexInformer<V1Pod> inA = factory.informer(InformerSpec.of(V1Pod.class).inNamespace("a"));
        assertThat(inA).isNotSameAs(pods);
        SharedIndexInformer<V1Pod> labelled = factory.informer(
                InformerSpec.of(V1Pod.class).inNamespace("a").withLabelSelector("app=web"));
        assertThat(labelled).isNotSameAs(inA);
        SharedIndexInformer<V1Pod> stripped = factory.informer(
                InformerSpec.of(V1Pod.class).withTransform(ObjectTransforms.stripManagedFields()));
        assertThat(stripped).isNotSameAs(pods);
        assertThat(factory.informer(InformerSpec.of(V1Pod.class).withTransform(ObjectTransforms.stripManagedFields())))
                .isSameAs(stripped);
        assertThat(factory.informers()).hasSize(4);
        assertThat(source.requested).containsExactly("V1Pod/null/null/null", "V1Pod/a/null/null",
                "V1Pod/a/app=web/null", "V1Pod/null/null/null");
        assertThat(labelled.spec().labelSelector()).isEqualTo("app=web");
    }

    @Test
    void aDefaultNamespaceScopesNamespacedInformersThatNameNone() {
        SharedInformerFactory scoped = SharedInformerFactory.builder(source).scheduler(time).namespace("shop").build();
        SharedIndexInformer<V1Pod> pods = scoped.informer(V1Pod.class);
        assertThat(pods.spec().namespace()).isEqualTo("shop");
        assertThat(scoped.informer(InformerSpec.of(V1Pod.class).inNamespace("shop"))).isSameAs(pods);
        assertThat(scoped.informer(InformerSpec.of(V1Pod.class).inNamespace("other")).spec().namespace())
                .isEqualTo("other");
        assertThat(scoped.informer(io.kubernetes.client.openapi.models.V1Namespace.class).spec().namespace()).isNull();
        assertThat(source.requested).containsExactly("V1Pod/shop/null/null", "V1Pod/other/null/null",
                "V1Namespace/null/null/null");
    }

    @Test
    void aMetadataInformerIsAnotherInformerThanTheFullOne() {
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        SharedIndexInformer<PartialObjectMetadata> podMetadata = factory.metadataInformer(V1Pod.class);
        assertThat(podMetadata).isNotSameAs(pods)
                .isSameAs(factory.metadataInformer(ResourceType.of(V1Pod.class)))
                .isSameAs(factory.informer(InformerSpec.metadataOnly(ResourceType.of(V1Pod.class).metadataOnly())));
        assertThat(factory.metadataInformer(V1ConfigMap.class)).isNotSameAs(podMetadata);
        SharedIndexInformer<PartialObjectMetadata> inA = factory.informer(
                InformerSpec.metadataOnly(V1Pod.class).inNamespace("a"));
        assertThat(inA).isNotSameAs(podMetadata);
        assertThat(inA.spec().metadataOf()).isEqualTo(ResourceType.of(V1Pod.class).metadataOnly());
        assertThat(source.requested).containsExactly("V1Pod/null/null/null",
                "metadata of pods/null", "PartialObjectMetadata/null/null/null",
                "metadata of configmaps/null", "PartialObjectMetadata/null/null/null",
                "metadata of pods/a", "PartialObjectMetadata/a/null/null");

        factory.start();
        StepVerifier.create(factory.waitForCacheSync()).expectComplete().verify(Duration.ofSeconds(5));
        assertThat(inA.lister().namespace("a").get("one")).hasValueSatisfying(
                m -> assertThat(m.getMetadata().getResourceVersion()).isEqualTo("3"));
    }

    @Test
    void aSourceWithoutMetadataSupportRefusesMetadataInformers() {
        ListerWatcherSource fullOnly = new ListerWatcherSource() {
            @Override
            public <T extends KubernetesObject> ListerWatcher<T> listerWatcher(Class<T> type, String namespace,
                                                                              String labelSelector,
                                                                              String fieldSelector) {
                return source.listerWatcher(type, namespace, labelSelector, fieldSelector);
            }
        };
        SharedInformerFactory plain = SharedInformerFactory.builder(fullOnly).scheduler(time).build();

        assertThatThrownBy(() -> plain.metadataInformer(V1Pod.class)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(plain.informers()).isEmpty();
    }

    @Test
    void aMetadataSpecHoldsPartialObjectMetadata() {
        assertThatThrownBy(() -> new InformerSpec<>(V1Pod.class, null, null, null, null,
                ResourceType.of(V1Pod.class).metadataOnly())).isInstanceOf(IllegalArgumentException.class);
        assertThat(InformerSpec.metadataOnly(V1ConfigMap.class).inNamespace("a").withLabelSelector("x=y").displayName())
                .isEqualTo("PartialObjectMetadata(configmaps)[namespace=a, labels=x=y]");
        assertThat(InformerSpec.metadataOnly(V1Pod.class).isMetadataOnly()).isTrue();
        assertThat(InformerSpec.of(V1Pod.class).isMetadataOnly()).isFalse();
    }

    @Test
    void indexersAreAddedToTheSharedInformer() {
        factory.informer(InformerSpec.of(V1Pod.class), Map.of("a", p -> List.of("x")));
        SharedIndexInformer<V1Pod> pods = factory.informer(InformerSpec.of(V1Pod.class),
                Map.of("a", p -> List.of("x"), "b", p -> List.of("y")));
        assertThat(pods.indexer().indexNames()).contains("a", "b");
    }

    @Test
    void startIsIdempotentAndWaitForCacheSyncCompletes() {
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        SharedIndexInformer<V1ConfigMap> configMaps = factory.informer(V1ConfigMap.class);
        factory.start();
        factory.start();
        assertThat(source.openWatches).hasValue(2);
        StepVerifier.create(factory.waitForCacheSync()).expectComplete().verify(Duration.ofSeconds(5));
        assertThat(pods.indexer().listKeys()).containsExactly("default/one");
        assertThat(configMaps.isSynced()).isTrue();

        SharedIndexInformer<V1Pod> inA = factory.informer(InformerSpec.of(V1Pod.class).inNamespace("a"));
        assertThat(inA.isStarted()).isFalse();
        factory.start();
        assertThat(inA.isStarted()).isTrue();
        assertThat(source.openWatches).hasValue(3);
    }

    @Test
    void waitForCacheSyncNamesTheInformerThatCannotSync() {
        source.forbidConfigMaps = true;
        factory.informer(V1Pod.class);
        factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace("kube-system"));
        factory.start();
        StepVerifier.create(factory.waitForCacheSync())
                .then(() -> time.advanceTimeBy(Duration.ofMillis(800)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(InformerSyncException.class, s -> {
                    assertThat(s.informerName()).isEqualTo("V1ConfigMap[namespace=kube-system]");
                    assertThat(s).hasMessageStartingWith("V1ConfigMap[namespace=kube-system]: not synced after 2");
                }))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void shutdownStopsEverything() {
        SharedIndexInformer<V1Pod> pods = factory.informer(V1Pod.class);
        SharedIndexInformer<V1ConfigMap> configMaps = factory.informer(V1ConfigMap.class);
        factory.start();
        StepVerifier.create(pods.notifications()).expectNextCount(1)
                .then(factory::shutdown) // eager: nothing subscribes to the returned Mono
                .expectComplete()
                .verify(Duration.ofSeconds(5));
        assertThat(source.openWatches).hasValue(0);
        assertThat(pods.isStopped()).isTrue();
        assertThat(configMaps.isStopped()).isTrue();
        assertThatThrownBy(() -> factory.informer(V1Pod.class)).isInstanceOf(IllegalStateException.class);
        factory.start();
        assertThat(source.openWatches).hasValue(0);
    }
}
