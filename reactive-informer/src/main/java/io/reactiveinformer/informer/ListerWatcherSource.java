package io.reactiveinformer.informer;

import io.kubernetes.client.common.KubernetesObject;
import io.reactiveinformer.api.PartialObjectMetadata;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.watch.ListerWatcher;
import java.util.Objects;

/**
 * Where a {@link SharedInformerFactory} gets the list and watch calls of each informer it creates; the
 * HTTP client implements it.
 *
 * <p>The reflector sends the selectors with every LIST and WATCH request (in {@code ListOptions} and
 * {@code WatchOptions}); they are passed here too so that the source can name or account for the
 * stream, but it must not add them to requests a second time. The namespace is not part of the request
 * options: the returned {@link ListerWatcher} must be scoped to it.
 */
public interface ListerWatcherSource {

    /**
     * The list and watch calls for one resource.
     *
     * @param type          the object type
     * @param namespace     the namespace to list and watch; {@code null} for all namespaces (or a
     *                      cluster-scoped resource)
     * @param labelSelector the label selector the requests carry, or {@code null}
     * @param fieldSelector the field selector the requests carry, or {@code null}
     */
    <T extends KubernetesObject> ListerWatcher<T> listerWatcher(Class<T> type, String namespace, String labelSelector,
                                                                String fieldSelector);

    /**
     * The list and watch calls for the metadata of one resource's objects
     * ({@link InformerSpec#metadataOnly}); the parameters mean what they mean for
     * {@link #listerWatcher}. A source that cannot serve metadata-only informers keeps this default,
     * which refuses.
     *
     * @param resource the resource, in its {@linkplain ResourceType#metadataOnly() metadata-only} form
     */
    default ListerWatcher<PartialObjectMetadata> metadataListerWatcher(ResourceType<PartialObjectMetadata> resource,
                                                                       String namespace, String labelSelector,
                                                                       String fieldSelector) {
        throw new UnsupportedOperationException(this + " does not serve metadata-only informers");
    }

    /** List and watch through {@code client}'s resource handles (full and metadata-only). */
    static ListerWatcherSource of(KubernetesClient client) {
        Objects.requireNonNull(client, "client");
        return new ListerWatcherSource() {
            @Override
            public <T extends KubernetesObject> ListerWatcher<T> listerWatcher(Class<T> type, String namespace,
                                                                               String labelSelector,
                                                                               String fieldSelector) {
                return scoped(client.resource(type), namespace);
            }

            @Override
            public ListerWatcher<PartialObjectMetadata> metadataListerWatcher(
                    ResourceType<PartialObjectMetadata> resource, String namespace, String labelSelector,
                    String fieldSelector) {
                return scoped(client.metadata(resource), namespace);
            }

            private <T extends KubernetesObject> ListerWatcher<T> scoped(ResourceClient<T> resource, String namespace) {
                return ListerWatcher.of(namespace == null ? resource.inAnyNamespace() : resource.inNamespace(namespace));
            }

            @Override
            public String toString() {
                return "ListerWatcherSource[" + client.config().server() + "]";
            }
        };
    }
}
