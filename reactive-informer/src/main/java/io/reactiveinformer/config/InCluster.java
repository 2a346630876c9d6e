package io.reactiveinformer.config;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import reactor.core.scheduler.Scheduler;

/** The configuration of a pod's service account, as client-go's {@code rest.InClusterConfig} reads it. */
final class InCluster {

    static final Path SERVICE_ACCOUNT_DIR = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

    private InCluster() {
    }

    static boolean isInCluster(Map<String, String> env) {
        return notEmpty(env.get("KUBERNETES_SERVICE_HOST")) && notEmpty(env.get("KUBERNETES_SERVICE_PORT"));
    }

    static ClientConfig load(Map<String, String> env, Path dir, Scheduler scheduler) {
        if (!isInCluster(env)) {
            throw new ConfigException("not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
        }
        String host = env.get("KUBERNETES_SERVICE_HOST");
        if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        URI server = URI.create("https://" + host + ":" + env.get("KUBERNETES_SERVICE_PORT"));
        Path token = dir.resolve("token");
        if (!Files.isReadable(token)) {
            throw new ConfigException("in-cluster token file " + token + " is not readable");
        }
        Path ca = dir.resolve("ca.crt");
        List<java.security.cert.X509Certificate> cas = Files.exists(ca)
                ? Pem.certificates(read(ca), "in-cluster CA " + ca) : List.of();
        Path namespaceFile = dir.resolve("namespace");
        String namespace = Files.exists(namespaceFile) ? new String(read(namespaceFile), StandardCharsets.UTF_8).trim()
                : "default";
        return ClientConfig.forServer(server)
                .withCaCertificates(cas)
                .withCredentials(new TokenFileCredentials(token, scheduler))
                .withNamespace(namespace.isEmpty() ? "default" : namespace)
                .withScheduler(scheduler);
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + file, e);
        }
    }

    private static boolean notEmpty(String s) {
        return s != null && !s.isEmpty();
    }
}
