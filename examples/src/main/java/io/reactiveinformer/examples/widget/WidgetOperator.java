package io.reactiveinformer.examples.widget;

import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapKeySelector;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.codec.KubernetesJson;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.controller.Conditions;
import io.reactiveinformer.controller.Controller;
import io.reactiveinformer.controller.EventRecorder;
import io.reactiveinformer.controller.Finalizer;
import io.reactiveinformer.controller.KeyMapper;
import io.reactiveinformer.controller.OwnerReferences;
import io.reactiveinformer.controller.Request;
import io.reactiveinformer.controller.Result;
import io.reactiveinformer.controller.StatusWriter;
import io.reactiveinformer.controller.Writes;
import io.reactiveinformer.informer.InformerSpec;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.leaderelection.LeaderElector;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * An operator of {@link Widget}s, leader-elected: for each Widget it keeps a Deployment of
 * {@code spec.replicas} pods and a ConfigMap holding {@code spec.message} (both applied server-side as the
 * field manager {@value #FIELD_MANAGER}, with a controller reference to the Widget), a file per Widget in a
 * directory outside Kubernetes (deleted behind the finalizer {@value #FINALIZER} when the Widget is deleted),
 * and the Widget's status: {@code observedGeneration} and a {@code Ready} condition. It records an
 * {@code events.k8s.io/v1} Event on the Widget when it has applied a new generation ({@code Applied}) and when
 * it has deleted the file ({@code Cleaned}), reported by {@value #REPORTING_CONTROLLER} and the replica's
 * identity; recording never holds up or fails a reconcile.
 *
 * <pre>
 * WidgetOperator [namespace] [identity] [directory]
 * </pre>
 *
 * With {@code $KUBECONFIG} set it installs the CustomResourceDefinition if absent and runs one replica named
 * {@code identity} (default {@code widget-operator-<pid>}) for the Widgets of {@code namespace} (default
 * {@code default}), campaigning for the Lease {@code widget-operator} there and writing its files to
 * {@code directory} (default {@code target/widget-files}). Without it, it runs on an embedded simulated API
 * server with one Widget, {@code hello}. It stops on Ctrl-C, releasing the Lease.
 *
 * <p><b>Threading:</b> reconciles run on the given scheduler, which is also the clock of the conditions'
 * transition times and of the controller's timers; file operations run on {@code Schedulers.boundedElastic()}.
 */
public final class WidgetOperator {

    /** The finalizer that guards a Widget's file. */
    public static final String FINALIZER = Widget.GROUP + "/widget-file";
    /** The field manager of the children and of the status. */
    public static final String FIELD_MANAGER = "widget-operator";
    /** The condition set once the children are applied for the Widget's current generation. */
    public static final String READY = "Ready";
    /** The label every child carries, naming its Widget (the children's informers select on it). */
    public static final String WIDGET_LABEL = Widget.GROUP + "/widget";
    /** The Events' reporting controller. */
    public static final String REPORTING_CONTROLLER = Widget.GROUP + "/widget-operator";
    /** The CustomResourceDefinition of Widgets, a resource beside this class. */
    static final String CRD_RESOURCE = "widgets-crd.json";

    private final WidgetFiles files;
    private final Scheduler scheduler;
    private final SharedInformerFactory factory;
    private final SharedIndexInformer<Widget> widgets;
    private final SharedIndexInformer<V1Deployment> deployments;
    private final SharedIndexInformer<V1ConfigMap> configMaps;
    private final ResourceClient<V1Deployment> deploymentClient;
    private final ResourceClient<V1ConfigMap> configMapClient;
    private final StatusWriter<Widget> status;
    private final EventRecorder events;
    private final Controller controller;

    WidgetOperator(KubernetesClient client, String namespace, LeaderElector elector, WidgetFiles files,
                   Scheduler scheduler) {
        Objects.requireNonNull(namespace, "namespace");
        this.files = Objects.requireNonNull(files, "files");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.factory = SharedInformerFactory.builder(client).namespace(namespace).build();
        this.widgets = factory.informer(InformerSpec.of(Widget.RESOURCE).inNamespace(namespace));
        this.deployments = factory.informer(InformerSpec.of(V1Deployment.class).inNamespace(namespace)
                .withLabelSelector(WIDGET_LABEL));
        this.configMaps = factory.informer(InformerSpec.of(V1ConfigMap.class).inNamespace(namespace)
                .withLabelSelector(WIDGET_LABEL));
        this.deploymentClient = client.resource(V1Deployment.class).inNamespace(namespace);
        this.configMapClient = client.resource(V1ConfigMap.class).inNamespace(namespace);
        ResourceClient<Widget> widgetClient = client.resource(Widget.RESOURCE).inNamespace(namespace);
        this.status = StatusWriter.of(widgetClient, widgets, FIELD_MANAGER, scheduler);
        this.events = EventRecorder.builder(client.resource(EventsV1Event.class), REPORTING_CONTROLLER,
                elector.identity()).scheduler(scheduler).build();
        Finalizer<Widget> finalizer = Finalizer.builder(FINALIZER, widgets, widgetClient)
                .reconcile(this::reconcile)
                .cleanup(widget -> files.delete(Request.of(widget))
                        .doOnSuccess(done -> events.normal(widget, "Cleaned", "DeleteFile", "deleted the Widget's file")))
                .build();
        this.controller = Controller.builder(widgets).name(FIELD_MANAGER)
                .owns(deployments, KeyMapper.controllerOwner(Widget.API_VERSION, Widget.KIND))
                .owns(configMaps, KeyMapper.controllerOwner(Widget.API_VERSION, Widget.KIND))
                .leaderElection(elector)
                .scheduler(scheduler)
                .reconciler(finalizer)
                .build();
    }

    /**
     * An operator of the Widgets of {@code namespace}, reconciling while {@code elector} leads, its files in
     * {@code directory}, its reconciles and timers on {@code scheduler}.
     */
    public static WidgetOperator create(KubernetesClient client, String namespace, LeaderElector elector,
                                        Path directory, Scheduler scheduler) {
        return new WidgetOperator(client, namespace, elector, WidgetFiles.in(directory), scheduler);
    }

    /** The file the operator keeps for the Widget {@code name} of {@code namespace} in {@code directory}. */
    public static Path fileOf(Path directory, String namespace, String name) {
        return WidgetFiles.fileOf(directory, Request.of(namespace, name));
    }

    /**
     * Starts the informers and the controller, which campaigns for the Lease and reconciles while it leads.
     * Disposing the handle stops the controller at once (its election releases the Lease), then the
     * informers and the event recorder.
     */
    public Disposable start() {
        Disposable running = controller.start();
        factory.start(); // the factory stops only the informers it started
        return Disposables.composite(() -> {
            running.dispose();
            factory.shutdown();
            events.dispose();
        });
    }

    /**
     * Stops gracefully: the controller finishes its reconciles in flight and releases the Lease, then the
     * informers stop; the returned {@code Mono} does it on subscription and completes when done.
     */
    public Mono<Void> shutdown() {
        return controller.shutdown().then(factory.shutdown()).then(Mono.fromRunnable(events::dispose));
    }

    /** Reconciles a live Widget, which carries the finalizer: file, ConfigMap, Deployment, then status. */
    private Mono<Result> reconcile(Widget widget) {
        Request request = Request.of(widget);
        String message = widget.getSpec() == null || widget.getSpec().getMessage() == null ? ""
                : widget.getSpec().getMessage();
        return files.write(request, message)
                .then(configMapClient.apply(configMap(widget, message), FIELD_MANAGER, true)
                        .transform(Writes.observedBy(configMaps)))
                .then(deploymentClient.apply(deployment(widget), FIELD_MANAGER, true)
                        .transform(Writes.observedBy(deployments)))
                .then(writeStatus(widget))
                .thenReturn(Result.done());
    }

    private V1ConfigMap configMap(Widget widget, String message) {
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(childMetadata(widget))
                .data(Map.of("message", message));
    }

    private V1Deployment deployment(Widget widget) {
        String name = widget.getMetadata().getName();
        Map<String, String> selector = Map.of(WIDGET_LABEL, name);
        int replicas = widget.getSpec() == null || widget.getSpec().getReplicas() == null ? 0
                : widget.getSpec().getReplicas();
        V1Container container = new V1Container().name("widget").image("registry.k8s.io/pause:3.10")
                .env(List.of(new V1EnvVar().name("MESSAGE").valueFrom(new V1EnvVarSource()
                        .configMapKeyRef(new V1ConfigMapKeySelector().name(name).key("message")))));
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment")
                .metadata(childMetadata(widget))
                .spec(new V1DeploymentSpec().replicas(replicas)
                        .selector(new V1LabelSelector().matchLabels(selector))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(selector))
                                .spec(new V1PodSpec().containers(List.of(container)))));
    }

    /**
     * A child's metadata: the Widget's name and namespace, the Widget's label, and the reference that makes the
     * Widget its controller: the garbage collector deletes the child with the Widget, and
     * {@link KeyMapper#controllerOwner} maps the child's changes back to it.
     */
    private static V1ObjectMeta childMetadata(Widget widget) {
        V1ObjectMeta owner = widget.getMetadata();
        V1ConfigMap child = new V1ConfigMap().metadata(new V1ObjectMeta().namespace(owner.getNamespace())
                .name(owner.getName()).labels(Map.of(WIDGET_LABEL, owner.getName())));
        return OwnerReferences.setControllerReference(widget, child).getMetadata();
    }

    /**
     * Applies {@code Ready=True} and the observed generation, unless the status says so already: the status
     * write is itself a change of the Widget, which comes back as a reconcile that must find nothing to do.
     */
    private Mono<Void> writeStatus(Widget widget) {
        Long generation = widget.getMetadata().getGeneration();
        Widget.Status current = widget.getStatus();
        List<V1Condition> conditions = current == null ? null : current.getConditions();
        V1Condition ready = new V1Condition().type(READY).status("True").reason("ChildrenApplied")
                .message("Deployment and ConfigMap applied").observedGeneration(generation);
        List<V1Condition> next = Conditions.set(conditions, ready,
                Instant.ofEpochMilli(scheduler.now(TimeUnit.MILLISECONDS)));
        if (next.equals(conditions) && Objects.equals(generation, current.getObservedGeneration())) {
            return Mono.empty();
        }
        Widget.Status written = new Widget.Status();
        written.setObservedGeneration(generation);
        written.setConditions(next);
        Widget applied = new Widget();
        applied.setMetadata(new V1ObjectMeta().namespace(widget.getMetadata().getNamespace())
                .name(widget.getMetadata().getName()));
        applied.setStatus(written);
        return status.apply(applied)
                .doOnNext(w -> {
                    System.out.println(FIELD_MANAGER + ": " + Request.of(w) + " generation " + generation + " is "
                            + READY);
                    events.normal(widget, "Applied", "ApplyChildren", "applied the Deployment and the ConfigMap of "
                            + "generation " + generation);
                })
                .then();
    }

    /**
     * Creates the Widget CustomResourceDefinition unless it exists, and completes once Widgets are served
     * (an established definition's endpoint may still answer 404 for a moment), retrying a 404 with backoff
     * on {@code scheduler} for up to about a minute.
     */
    public static Mono<Void> installCrd(KubernetesClient client, Scheduler scheduler) {
        ResourceClient<V1CustomResourceDefinition> crds = client.resource(V1CustomResourceDefinition.class);
        V1CustomResourceDefinition crd = client.json().decode(crdBytes(), V1CustomResourceDefinition.class);
        Mono<Void> served = Mono.defer(() -> client.resource(Widget.RESOURCE).inNamespace("default")
                        .list(ListOptions.none().withLimit(1)))
                .retryWhen(Retry.backoff(20, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5))
                        .filter(KubernetesApiException.NotFound.class::isInstance).scheduler(scheduler)
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
                .then();
        return crds.get(crd.getMetadata().getName())
                .onErrorResume(KubernetesApiException.NotFound.class, absent -> crds.create(crd)
                        .onErrorResume(KubernetesApiException.Conflict.class, raced -> Mono.empty()))
                .then(served);
    }

    static byte[] crdBytes() {
        try (InputStream in = WidgetOperator.class.getResourceAsStream(CRD_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(CRD_RESOURCE + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        String namespace = args.length > 0 ? args[0] : "default";
        String identity = args.length > 1 ? args[1] : "widget-operator-" + ProcessHandle.current().pid();
        Path directory = Path.of(args.length > 2 ? args[2] : "target/widget-files");
        Disposable.Composite running = Disposables.composite();
        KubernetesClient client;
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            client = KubernetesClient.create(ClientConfig.fromKubeconfig());
        } else {
            ClusterState state = ClusterState.builder()
                    .resource(ResourceType.of(V1CustomResourceDefinition.class), true)
                    .customResource(KubernetesJson.defaults().mapper().readTree(crdBytes()))
                    .build();
            SimulatedApiServer server = SimulatedApiServer.start(state);
            running.add(server::close);
            client = server.newClient();
            System.out.println("no $KUBECONFIG: an embedded simulated API server at " + server.url());
        }
        running.add(client::close);
        installCrd(client, Schedulers.parallel()).block(Duration.ofMinutes(2));
        LeaderElector elector = LeaderElector.builder(client.resource(V1Lease.class).inNamespace(namespace),
                FIELD_MANAGER, identity).build();
        running.add(create(client, namespace, elector, directory, Schedulers.parallel()).start());
        System.out.println(identity + ": operating the Widgets of " + namespace + " on " + client.config().server()
                + ", files in " + directory.toAbsolutePath());
        if (kubeconfig == null || kubeconfig.isBlank()) {
            client.resource(Widget.RESOURCE).create(Widget.of(namespace, "hello", 2, "hello, world"))
                    .block(Duration.ofSeconds(30));
        }
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.dispose();
            stop.countDown();
        }));
        stop.await();
    }
}
