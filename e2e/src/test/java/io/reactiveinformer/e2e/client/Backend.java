package io.reactiveinformer.e2e.client;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;

/**
 * An API server the client contract runs against, and how to provoke on it what the contract
 * checks. Where the simulated server cannot do something the real one does the same way (no RBAC,
 * a different compaction), the backend adapts the trigger; the assertions stay the same.
 *
 * <p>The hooks block the calling (test) thread until the server is in the stated state.
 */
interface Backend extends AutoCloseable {

    /** May do anything. Stays usable across {@link #stopApiServer()} and {@link #startApiServer()}. */
    KubernetesClient admin();

    /** Authenticated, but every request for a namespaced resource answers 403 Forbidden. */
    KubernetesClient restricted();

    /** The test custom resource {@code widgets.testenv.reactiveinformer.io/v1} (with a status subresource). */
    ResourceType<DynamicObject> widgets();

    /**
     * The test custom resource {@code gadgets.testenv.reactiveinformer.io/v1} ({@code testenv/crds/gadgets.yaml}),
     * whose schema exercises validation and pruning.
     */
    ResourceType<DynamicObject> gadgets();

    /**
     * Makes every resourceVersion issued before the latest change answer 410 to a WATCH and to an
     * exact LIST.
     */
    void compact();

    /** Stops the server: open connections end, new ones are refused. */
    void stopApiServer();

    /** Starts it again at the same address, with the same data. */
    void startApiServer();

    @Override
    void close();
}
