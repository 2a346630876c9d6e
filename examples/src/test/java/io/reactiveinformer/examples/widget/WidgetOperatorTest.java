package io.reactiveinformer.examples.widget;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.controller.Conditions;
import io.reactiveinformer.controller.Request;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.RequestInfo;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Widget operator over HTTP on the simulated API server, serving the operator's own
 * CustomResourceDefinition. The controller runs in virtual time: its timers and the conditions' transition
 * times move only when the test moves the clock (by 100 ms at each look at the server, and by an hour before
 * the spec changes). The election runs on the wall clock, with default timings, so that it never expires
 * while the virtual clock jumps.
 */
@Timeout(60)
class WidgetOperatorTest {

    private static final String NS = "default";
    private static final ResourceType<DynamicObject> STORED_WIDGETS =
            ResourceType.dynamic(Widget.GROUP, "v1", "widgets", Widget.KIND, true);
    private static final Duration T = Duration.ofSeconds(10);

    @TempDir
    Path directory;

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private SimulatedApiServer server;
    private KubernetesClient client;
    private ResourceClient<Widget> widgets;
    private WidgetOperator operator;
    /** Each cleanup of a file: the Widget's key and the Widget as stored at that moment (empty if gone). */
    private final List<Cleanup> cleanups = new CopyOnWriteArrayList<>();

    record Cleanup(String key, Optional<Widget> stored) {
    }

    @BeforeEach
    void start() {
        ClusterState state = ClusterState.builder()
                .customResource(JsonMapper.shared().readTree(WidgetOperator.crdBytes()))
                .resource(ResourceType.of(V1CustomResourceDefinition.class), true)
                .build();
        server = SimulatedApiServer.start(state);
        client = server.newClient();
        widgets = client.resource(Widget.RESOURCE).inNamespace(NS);
    }

    private void startOperator() {
        WidgetFiles files = WidgetFiles.in(directory);
        WidgetFiles recorded = new WidgetFiles() {
            @Override
            public Mono<Void> write(Request widget, String content) {
                return files.write(widget, content);
            }

            @Override
            public Mono<Void> delete(Request widget) {
                return Mono.fromRunnable(() -> cleanups.add(new Cleanup(widget.key(), stored(widget.name()))))
                        .then(files.delete(widget));
            }
        };
        LeaderElector elector = LeaderElector.builder(client.resource(V1Lease.class).inNamespace(NS),
                WidgetOperator.FIELD_MANAGER, "test-replica").build();
        operator = new WidgetOperator(client, NS, elector, recorded, time);
        operator.start();
    }

    @AfterEach
    void stop() {
        if (operator != null) {
            operator.shutdown().block(T);
        }
        client.close();
        server.close();
        time.dispose();
    }

    private Optional<Widget> stored(String name) {
        return server.state().find(STORED_WIDGETS, NS, name)
                .map(w -> server.state().fromTree(server.state().toTree(w), Widget.class));
    }

    private <T> Optional<T> child(Class<T> type, String name) {
        return server.state().find(ResourceType.of(type), NS, name);
    }

    private Optional<V1Condition> ready(String name) {
        return stored(name).map(Widget::getStatus)
                .flatMap(s -> Conditions.find(s.getConditions(), WidgetOperator.READY));
    }

    /** Until {@code condition} holds; each look moves the controller's clock by 100 ms (its backoffs may be due). */
    private void await(BooleanSupplier condition) {
        StepVerifier.create(Convergence.until(() -> {
            time.advanceTimeBy(Duration.ofMillis(100));
            return condition.getAsBoolean();
        }, T, Schedulers.parallel())).verifyComplete();
    }

    /** The Events recorded on the Widget {@code name}, as {@code reason: note}. */
    private List<String> events(String name) {
        return server.state().list(EventsV1Event.class).stream()
                .filter(e -> e.getRegarding() != null && name.equals(e.getRegarding().getName())
                        && WidgetOperator.REPORTING_CONTROLLER.equals(e.getReportingController()))
                .map(e -> e.getReason() + ": " + e.getNote())
                .toList();
    }

    private String file(String name) throws Exception {
        return Files.readString(WidgetOperator.fileOf(directory, NS, name), StandardCharsets.UTF_8);
    }

    private Widget createAndAwaitReady(String name, int replicas, String message) {
        widgets.create(Widget.of(NS, name, replicas, message)).block(T);
        await(() -> ready(name).map(c -> Long.valueOf(1).equals(c.getObservedGeneration())).orElse(false));
        return stored(name).orElseThrow();
    }

    private static void assertControlledBy(V1ObjectMeta child, Widget widget) {
        assertThat(child.getLabels()).containsEntry(WidgetOperator.WIDGET_LABEL, widget.getMetadata().getName());
        V1OwnerReference owner = child.getOwnerReferences().stream().collect(onlyElement());
        assertThat(owner.getApiVersion()).isEqualTo(Widget.API_VERSION);
        assertThat(owner.getKind()).isEqualTo(Widget.KIND);
        assertThat(owner.getName()).isEqualTo(widget.getMetadata().getName());
        assertThat(owner.getUid()).isEqualTo(widget.getMetadata().getUid()).isNotBlank();
        assertThat(owner.getController()).isTrue();
        assertThat(owner.getBlockOwnerDeletion()).isTrue();
    }

    private static <T> java.util.stream.Collector<T, ?, T> onlyElement() {
        return java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toList(), list -> {
            assertThat(list).hasSize(1);
            return list.get(0);
        });
    }

    @Test
    void aNewWidgetGetsItsChildrenItsFileAndReadyWithItsGeneration() throws Exception {
        startOperator();
        Widget widget = createAndAwaitReady("w", 3, "hello");

        assertThat(widget.getMetadata().getFinalizers()).containsExactly(WidgetOperator.FINALIZER);
        assertThat(widget.getStatus().getObservedGeneration()).isEqualTo(1);
        V1Condition ready = ready("w").orElseThrow();
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(ready.getReason()).isEqualTo("ChildrenApplied");
        V1Deployment deployment = child(V1Deployment.class, "w").orElseThrow();
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
        assertThat(deployment.getSpec().getSelector().getMatchLabels())
                .containsEntry(WidgetOperator.WIDGET_LABEL, "w");
        assertControlledBy(deployment.getMetadata(), widget);
        V1ConfigMap configMap = child(V1ConfigMap.class, "w").orElseThrow();
        assertThat(configMap.getData()).containsExactly(java.util.Map.entry("message", "hello"));
        assertControlledBy(configMap.getMetadata(), widget);
        assertThat(file("w")).isEqualTo("hello");
        assertThat(deployment.getMetadata().getManagedFields())
                .anySatisfy(f -> assertThat(f.getManager()).isEqualTo(WidgetOperator.FIELD_MANAGER));
        await(() -> !events("w").isEmpty());
        assertThat(events("w")).containsExactly("Applied: applied the Deployment and the ConfigMap of generation 1");
    }

    @Test
    void aSpecChangeUpdatesTheChildrenAndTheGenerationButNotTheTransitionTime() throws Exception {
        startOperator();
        createAndAwaitReady("w", 3, "hello");
        OffsetDateTime transition = ready("w").orElseThrow().getLastTransitionTime();
        long before = time.now(java.util.concurrent.TimeUnit.MILLISECONDS);

        time.advanceTimeBy(Duration.ofHours(1));
        widgets.patch("w", PatchType.MERGE, "{\"spec\":{\"replicas\":5,\"message\":\"bye\"}}").block(T);
        await(() -> ready("w").map(c -> Long.valueOf(2).equals(c.getObservedGeneration())).orElse(false));

        Widget widget = stored("w").orElseThrow();
        assertThat(widget.getMetadata().getGeneration()).isEqualTo(2);
        assertThat(widget.getStatus().getObservedGeneration()).isEqualTo(2);
        await(() -> child(V1Deployment.class, "w").map(d -> d.getSpec().getReplicas() == 5).orElse(false));
        assertThat(child(V1ConfigMap.class, "w").orElseThrow().getData()).containsEntry("message", "bye");
        assertThat(file("w")).isEqualTo("bye");
        V1Condition ready = ready("w").orElseThrow();
        assertThat(ready.getStatus()).isEqualTo("True");
        assertThat(time.now(java.util.concurrent.TimeUnit.MILLISECONDS) - before)
                .as("the clock moved on").isGreaterThanOrEqualTo(Duration.ofHours(1).toMillis());
        assertThat(ready.getLastTransitionTime()).as("the status did not change, so neither did the transition")
                .isEqualTo(transition);
    }

    @Test
    void aDeletedWidgetsFileIsRemovedOnceBeforeItsFinalizerAndTheWidgetGoes() throws Exception {
        startOperator();
        createAndAwaitReady("w", 1, "hello");
        createAndAwaitReady("other", 1, "stays");
        assertThat(WidgetOperator.fileOf(directory, NS, "w")).exists();

        widgets.delete("w").block(T);
        await(() -> stored("w").isEmpty());

        assertThat(cleanups).singleElement().satisfies(cleanup -> {
            assertThat(cleanup.key()).isEqualTo(NS + "/w");
            Widget guarded = cleanup.stored().orElseThrow();
            assertThat(guarded.getMetadata().getDeletionTimestamp()).as("being deleted").isNotNull();
            assertThat(guarded.getMetadata().getFinalizers()).as("held by the finalizer during the cleanup")
                    .containsExactly(WidgetOperator.FINALIZER);
        });
        assertThat(WidgetOperator.fileOf(directory, NS, "w")).doesNotExist();
        assertThat(file("other")).isEqualTo("stays");
        await(() -> events("w").size() == 2);
        assertThat(events("w")).containsExactlyInAnyOrder(
                "Applied: applied the Deployment and the ConfigMap of generation 1", "Cleaned: deleted the Widget's file");
        assertThat(server.requests()).as("patches of the Widget (its status is written through /status)")
                .filteredOn(r -> r.method().equals("PATCH") && r.path().endsWith("/widgets/w"))
                .hasSize(2); // one added the finalizer, one removed it
    }

    @Test
    void theDefinitionIsInstalledOnlyWhenAbsent() {
        WidgetOperator.installCrd(client, time).block(T);
        WidgetOperator.installCrd(client, time).block(T);

        assertThat(server.state().list(V1CustomResourceDefinition.class)).singleElement()
                .satisfies(crd -> {
                    assertThat(crd.getMetadata().getName()).isEqualTo("widgets.examples.reactiveinformer.io");
                    assertThat(crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema().getProperties()
                            .get("status").getProperties().get("conditions").getxKubernetesListMapKeys())
                            .containsExactly("type");
                });
        assertThat(server.requests()).filteredOn(r -> r.path().contains("customresourcedefinitions"))
                .extracting(RequestInfo::method).containsExactly("GET", "POST", "GET");
    }
}
