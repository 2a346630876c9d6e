package io.reactiveinformer.e2e.client;

import java.nio.file.Path;
import java.util.List;

import io.reactiveinformer.api.DynamicObject;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.config.Encoding;
import io.reactiveinformer.test.apiserver.KubeApiServer;

/** The real kube-apiserver of {@code testenv/}, as the kubeconfig's two contexts see it. */
final class KubeApiServerBackend implements Backend {

    private static final Path WIDGETS = Path.of("crds/widgets.yaml");
    private static final Path GADGETS = Path.of("crds/gadgets.yaml");

    private final KubeApiServer env;
    private final KubernetesClient admin;
    private final KubernetesClient restricted;
    private final Encoding encoding;

    KubeApiServerBackend(KubeApiServer env) {
        this(env, Encoding.PROTOBUF);
    }

    /** With clients reading in {@code encoding} (the contract suites run in both against kube-apiserver). */
    KubeApiServerBackend(KubeApiServer env, Encoding encoding) {
        this.env = env;
        this.encoding = encoding;
        this.admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin")
                .withEncoding(encoding));
        this.restricted = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "restricted")
                .withEncoding(encoding));
    }

    @Override
    public KubernetesClient admin() {
        return admin;
    }

    @Override
    public KubernetesClient restricted() {
        return restricted;
    }

    @Override
    public ResourceType<DynamicObject> widgets() {
        KubeApiServer.InstalledCrd crd = env.installCrd(WIDGETS);
        return ResourceType.dynamic(crd.group(), crd.version(), crd.plural(), "Widget", crd.namespaced());
    }

    @Override
    public ResourceType<DynamicObject> gadgets() {
        KubeApiServer.InstalledCrd crd = env.installCrd(GADGETS);
        return ResourceType.dynamic(crd.group(), crd.version(), crd.plural(), "Gadget", crd.namespaced());
    }

    @Override
    public void compact() {
        env.compact();
    }

    @Override
    public void stopApiServer() {
        env.stopApiServer();
    }

    @Override
    public void startApiServer() {
        env.startApiServer();
    }

    @Override
    public void close() {
        admin.close();
        restricted.close();
    }

    @Override
    public String toString() {
        return "kube-apiserver " + env.kubernetesVersion() + " in " + encoding;
    }
}
