package io.reactiveinformer.config;

import java.net.URI;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Everything needed to talk to one API server: where, how to trust it, who we are, and the default
 * namespace. Immutable; the {@code with...} methods return modified copies.
 *
 * <p>The loaders ({@link #load()}, {@link #fromKubeconfig}, {@link #inCluster()}) read files and are
 * blocking: call them at startup, or from {@code Mono.fromCallable(...)} on boundedElastic. The
 * credentials they configure re-read token files and re-run exec plugins later by themselves, off
 * the event loop (see {@link Credentials}).
 */
public final class ClientConfig {

    /** Default limit for a whole non-watch request (a LIST of many pages is one request per page). */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final URI server;
    private final List<X509Certificate> caCertificates;
    private final boolean insecureSkipTlsVerify;
    private final List<X509Certificate> clientCertificates;
    private final PrivateKey clientKey;
    private final Credentials credentials;
    private final String namespace;
    private final boolean namespaceFromContext;
    private final Duration requestTimeout;
    private final Scheduler scheduler;
    private final Encoding encoding;

    private ClientConfig(URI server, List<X509Certificate> caCertificates, boolean insecureSkipTlsVerify,
                         List<X509Certificate> clientCertificates, PrivateKey clientKey, Credentials credentials,
                         String namespace, boolean namespaceFromContext, Duration requestTimeout,
                         Scheduler scheduler, Encoding encoding) {
        this.server = Objects.requireNonNull(server, "server");
        this.caCertificates = List.copyOf(caCertificates);
        this.insecureSkipTlsVerify = insecureSkipTlsVerify;
        this.clientCertificates = List.copyOf(clientCertificates);
        this.clientKey = clientKey;
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.namespaceFromContext = namespaceFromContext;
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.encoding = Objects.requireNonNull(encoding, "encoding");
        if (!"https".equals(server.getScheme()) && !"http".equals(server.getScheme())) {
            throw new ConfigException("server must be an http(s) URL: " + server);
        }
    }

    /** A plain configuration: the JDK's trusted CAs, no credentials, namespace {@code default}. */
    public static ClientConfig forServer(URI server) {
        return new ClientConfig(server, List.of(), false, List.of(), null, Credentials.none(), "default", false,
                DEFAULT_REQUEST_TIMEOUT, Schedulers.parallel(), Encoding.PROTOBUF);
    }

    /**
     * What kubectl would use: {@code $KUBECONFIG} (files joined with the path separator, merged) or
     * {@code ~/.kube/config} with its current context; else, inside a pod, the in-cluster configuration.
     *
     * @throws ConfigException if there is neither, or what there is cannot be used
     */
    public static ClientConfig load() {
        return load(System.getenv(), Path.of(System.getProperty("user.home")), InCluster.SERVICE_ACCOUNT_DIR);
    }

    /** The kubeconfig files kubectl would read, in the current context. */
    public static ClientConfig fromKubeconfig() {
        return fromKubeconfig((String) null);
    }

    /** The kubeconfig files kubectl would read, in the given context ({@code null}: the current one). */
    public static ClientConfig fromKubeconfig(String context) {
        Map<String, String> env = System.getenv();
        return Kubeconfig.load(Kubeconfig.defaultFiles(env, Path.of(System.getProperty("user.home"))), context,
                Schedulers.parallel());
    }

    /**
     * The given kubeconfig files, merged as kubectl merges {@code $KUBECONFIG} (the first file to
     * define a name or the current context wins), in the given context ({@code null}: the current one).
     */
    public static ClientConfig fromKubeconfig(List<Path> files, String context) {
        return Kubeconfig.load(files, context, Schedulers.parallel());
    }

    /**
     * Inside a pod: {@code KUBERNETES_SERVICE_HOST}/{@code _PORT}, the service-account token (re-read as
     * it rotates), CA and namespace under {@code /var/run/secrets/kubernetes.io/serviceaccount}.
     */
    public static ClientConfig inCluster() {
        return InCluster.load(System.getenv(), InCluster.SERVICE_ACCOUNT_DIR, Schedulers.parallel());
    }

    static ClientConfig load(Map<String, String> env, Path home, Path serviceAccountDir) {
        List<Path> files = Kubeconfig.defaultFiles(env, home);
        if (!files.isEmpty()) {
            return Kubeconfig.load(files, null, Schedulers.parallel());
        }
        if (InCluster.isInCluster(env)) {
            return InCluster.load(env, serviceAccountDir, Schedulers.parallel());
        }
        throw new ConfigException("no configuration: $KUBECONFIG and ~/.kube/config are absent"
                + " and KUBERNETES_SERVICE_HOST is not set");
    }

    /** The API server URL; a path in it prefixes every request path. */
    public URI server() {
        return server;
    }

    /** The CAs the server certificate must chain to; empty means the JDK's default trust store. */
    public List<X509Certificate> caCertificates() {
        return caCertificates;
    }

    /** Whether the server certificate is not verified at all (only when the kubeconfig says so). */
    public boolean insecureSkipTlsVerify() {
        return insecureSkipTlsVerify;
    }

    /** The client certificate chain, empty when none. */
    public List<X509Certificate> clientCertificates() {
        return clientCertificates;
    }

    /** The client certificate's private key, or {@code null}. */
    public PrivateKey clientKey() {
        return clientKey;
    }

    public Credentials credentials() {
        return credentials;
    }

    /** The namespace of the context (or of the pod), {@code default} when none is set. */
    public String namespace() {
        return namespace;
    }

    /** The limit for a whole non-watch request; watches are bounded by their {@code timeoutSeconds} instead. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** The scheduler every client timer runs on and whose clock ages credentials. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** How list, get and watch responses are asked for: {@link Encoding#PROTOBUF} unless set. */
    public Encoding encoding() {
        return encoding;
    }

    public ClientConfig withServer(URI server) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    public ClientConfig withCaCertificates(List<X509Certificate> caCertificates) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    /** Turns server certificate verification off. Only for test clusters. */
    public ClientConfig withInsecureSkipTlsVerify(boolean insecureSkipTlsVerify) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    public ClientConfig withClientCertificate(List<X509Certificate> chain, PrivateKey key) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, chain, key, credentials, namespace,
                namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    public ClientConfig withCredentials(Credentials credentials) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    /** The namespace of namespaced resource handles; not a {@linkplain #contextNamespace() context namespace}. */
    public ClientConfig withNamespace(String namespace) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, false, requestTimeout, scheduler, encoding);
    }

    /** As {@link #withNamespace}, for the namespace a kubeconfig context sets. */
    ClientConfig withContextNamespace(String namespace) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, true, requestTimeout, scheduler, encoding);
    }

    /**
     * The namespace the kubeconfig context sets, if it sets one: informer factories built on a client
     * watch only it by default (as kubectl lists only it); empty for any other configuration.
     */
    public java.util.Optional<String> contextNamespace() {
        return namespaceFromContext ? java.util.Optional.of(namespace) : java.util.Optional.empty();
    }

    public ClientConfig withRequestTimeout(Duration requestTimeout) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    /**
     * The scheduler for timers (request timeouts, watch deadlines) and the clock of credentials that
     * expire. Credentials already built keep the clock they were built with.
     */
    public ClientConfig withScheduler(Scheduler scheduler) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    /**
     * How list, get and watch responses are asked for (see {@link Encoding}); writes are JSON either way.
     * {@link Encoding#JSON} never asks for protobuf.
     */
    public ClientConfig withEncoding(Encoding encoding) {
        return new ClientConfig(server, caCertificates, insecureSkipTlsVerify, clientCertificates, clientKey,
                credentials, namespace, namespaceFromContext, requestTimeout, scheduler, encoding);
    }

    @Override
    public String toString() {
        return "ClientConfig[server=" + server + ", namespace=" + namespace + ", credentials=" + credentials
                + ", clientCertificate=" + !clientCertificates.isEmpty() + ", insecureSkipTlsVerify="
                + insecureSkipTlsVerify + ", encoding=" + encoding + "]";
    }
}
