package io.reactiveinformer.e2e.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Conditions;
import io.reactiveinformer.examples.widget.Widget;
import io.reactiveinformer.examples.widget.WidgetOperator;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The example Widget operator on the real kube-apiserver: its CustomResourceDefinition installed by the
 * operator itself, then a Widget created, changed and deleted. The test environment runs no
 * kube-controller-manager, so no garbage collector deletes the children with their Widget and no Deployment
 * controller makes pods: the test asserts what the API server itself stores.
 */
@KubeApiServerTest
class WidgetOperatorE2eTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final KubernetesClient admin;
    private final String namespace = "widgets-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    private WidgetOperator operator;

    @TempDir
    Path directory;

    WidgetOperatorE2eTest(KubeApiServer env) {
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
    }

    @AfterEach
    void stop() {
        if (operator != null) {
            operator.shutdown().block(DEADLINE);
        }
        admin.resource(V1Namespace.class).delete(namespace).onErrorResume(e -> Mono.empty()).block(DEADLINE);
        admin.close();
    }

    /** The Widget as stored, empty once it is gone. */
    private Optional<Widget> stored(String name) {
        return admin.resource(Widget.RESOURCE).inNamespace(namespace).get(name)
                .map(Optional::of)
                .onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.just(Optional.empty()))
                .block(DEADLINE);
    }

    /** Until the stored Widget satisfies {@code condition}: read every 100 ms on boundedElastic. */
    private Widget await(String name, Predicate<Optional<Widget>> condition) {
        return Mono.fromCallable(() -> stored(name))
                .subscribeOn(Schedulers.boundedElastic())
                .filter(condition)
                .repeatWhenEmpty(Integer.MAX_VALUE, tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(100))))
                .timeout(DEADLINE)
                .block()
                .orElse(null);
    }

    /** The Events the operator recorded on the Widget {@code name}, as {@code reason: note}, once {@code condition} holds. */
    private List<String> awaitEvents(String name, Predicate<List<String>> condition) {
        return Mono.defer(() -> admin.resource(EventsV1Event.class).inNamespace(namespace).list(ListOptions.none()))
                .map(list -> list.items().stream()
                        .filter(e -> name.equals(e.getRegarding().getName())
                                && WidgetOperator.REPORTING_CONTROLLER.equals(e.getReportingController()))
                        .map(e -> e.getReason() + ": " + e.getNote())
                        .toList())
                .filter(condition)
                .repeatWhenEmpty(Integer.MAX_VALUE, tries -> tries.concatMap(i -> Mono.delay(Duration.ofMillis(100))))
                .timeout(DEADLINE)
                .block();
    }

    private static Predicate<Optional<Widget>> readyAt(long generation) {
        return widget -> widget.flatMap(WidgetOperatorE2eTest::ready)
                .map(c -> "True".equals(c.getStatus()) && Long.valueOf(generation).equals(c.getObservedGeneration()))
                .orElse(false);
    }

    private static Optional<V1Condition> ready(Widget widget) {
        return Optional.ofNullable(widget.getStatus())
                .flatMap(s -> Conditions.find(s.getConditions(), WidgetOperator.READY));
    }

    private static void assertControlledBy(V1ObjectMeta child, Widget widget) {
        assertThat(child.getOwnerReferences()).singleElement().satisfies((V1OwnerReference owner) -> {
            assertThat(owner.getApiVersion()).isEqualTo(Widget.API_VERSION);
            assertThat(owner.getKind()).isEqualTo(Widget.KIND);
            assertThat(owner.getName()).isEqualTo(widget.getMetadata().getName());
            assertThat(owner.getUid()).isEqualTo(widget.getMetadata().getUid());
            assertThat(owner.getController()).isTrue();
        });
        assertThat(child.getManagedFields()).anySatisfy(f -> {
            assertThat(f.getManager()).isEqualTo(WidgetOperator.FIELD_MANAGER);
            assertThat(f.getOperation()).isEqualTo("Apply");
        });
    }

    @Test
    void aWidgetIsOperatedFromCreationToDeletion() throws Exception {
        WidgetOperator.installCrd(admin, Schedulers.parallel()).block(Duration.ofMinutes(2));
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        LeaderElector elector = LeaderElector.builder(admin.resource(V1Lease.class).inNamespace(namespace),
                WidgetOperator.FIELD_MANAGER, "e2e-replica").build();
        operator = WidgetOperator.create(admin, namespace, elector, directory, Schedulers.parallel());
        operator.start();
        ResourceClient<Widget> widgets = admin.resource(Widget.RESOURCE).inNamespace(namespace);
        ResourceClient<V1Deployment> deployments = admin.resource(V1Deployment.class).inNamespace(namespace);
        ResourceClient<V1ConfigMap> configMaps = admin.resource(V1ConfigMap.class).inNamespace(namespace);
        Path file = WidgetOperator.fileOf(directory, namespace, "w");

        widgets.create(Widget.of(namespace, "w", 2, "hello")).block(DEADLINE);
        Widget created = await("w", readyAt(1));

        assertThat(created.getMetadata().getFinalizers()).containsExactly(WidgetOperator.FINALIZER);
        assertThat(created.getStatus().getObservedGeneration()).isEqualTo(1);
        assertThat(ready(created).orElseThrow().getReason()).isEqualTo("ChildrenApplied");
        V1Deployment deployment = deployments.get("w").block(DEADLINE);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        assertControlledBy(deployment.getMetadata(), created);
        V1ConfigMap configMap = configMaps.get("w").block(DEADLINE);
        assertThat(configMap.getData()).containsEntry("message", "hello");
        assertControlledBy(configMap.getMetadata(), created);
        assertThat(Files.readString(file)).isEqualTo("hello");
        OffsetDateTime transition = ready(created).orElseThrow().getLastTransitionTime();

        widgets.patch("w", PatchType.MERGE, "{\"spec\":{\"replicas\":4,\"message\":\"bye\"}}").block(DEADLINE);
        Widget changed = await("w", readyAt(2));

        assertThat(changed.getMetadata().getGeneration()).isEqualTo(2);
        assertThat(changed.getStatus().getObservedGeneration()).isEqualTo(2);
        assertThat(ready(changed).orElseThrow().getLastTransitionTime()).as("Ready stayed True")
                .isEqualTo(transition);
        assertThat(deployments.get("w").block(DEADLINE).getSpec().getReplicas()).isEqualTo(4);
        assertThat(configMaps.get("w").block(DEADLINE).getData()).containsEntry("message", "bye");
        assertThat(Files.readString(file)).isEqualTo("bye");

        widgets.delete("w").block(DEADLINE);
        assertThat(await("w", Optional::isEmpty)).as("gone once the finalizer was removed").isNull();
        assertThat(file).as("cleaned up before the finalizer was removed").doesNotExist();
        assertThat(awaitEvents("w", events -> events.size() == 3)).as("events.k8s.io/v1 Events on the Widget")
                .containsExactlyInAnyOrder("Applied: applied the Deployment and the ConfigMap of generation 1",
                        "Applied: applied the Deployment and the ConfigMap of generation 2",
                        "Cleaned: deleted the Widget's file");
    }
}
