package io.reactiveinformer.test.apiserver;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import javax.net.ssl.SSLContext;

/**
 * A running etcd + kube-apiserver on 127.0.0.1 (started by {@code testenv/testenv.sh}): where to reach it,
 * who to be, and hooks that stop, restart or age it for reconnect and expiry tests. Get one with
 * {@link #startOrAttach()} from any code (a {@code main()}, a benchmark, any test framework), or as a
 * parameter of a JUnit test annotated {@code @KubeApiServerTest} (module {@code reactive-informer-test}).
 *
 * <p>The environment is shared by every test in the JVM: a hook affects all of them, and objects created
 * by one test stay visible to the next, so tests use their own namespaces or names.
 *
 * <p>An environment started with {@code testenv.sh start --control-plane} ({@link #hasControlPlane()}; get
 * one with {@link #startOrAttachControlPlane()}) also runs kube-controller-manager (every default
 * controller: garbage collector, namespace, Deployment, ReplicaSet, service accounts, which also put a
 * {@code default} ServiceAccount and a {@code kube-root-ca.crt} ConfigMap in every namespace),
 * kube-scheduler, and kwok playing the kubelet of fake Nodes labelled {@code type=kwok}: pods are
 * scheduled, turn Running and Ready, and are deleted without containers. Without it there is no controller
 * manager: namespaces never finish terminating, owner references are never followed and pods are never
 * scheduled.
 *
 * <p>The hooks block the calling thread until the environment is back to the stated state (bounded: they
 * throw {@link IllegalStateException} with the server's log tail when it does not get there), so call
 * them from the test thread, never from a non-blocking one.
 */
public final class KubeApiServer implements AutoCloseable {

    /** Environment variable naming the kubeconfig of a running environment to reuse. */
    public static final String KUBECONFIG_ENV = "REACTIVE_INFORMER_KUBECONFIG";
    /** System property with the same meaning as {@link #KUBECONFIG_ENV}; wins over it. */
    public static final String KUBECONFIG_PROPERTY = "reactive-informer.kubeconfig";
    /** System property naming the {@code testenv/} directory. */
    public static final String TESTENV_DIR_PROPERTY = "reactive-informer.testenv";
    /**
     * Environment variable naming the kubeconfig of a running environment with a control plane to reuse, for
     * {@link #startOrAttachControlPlane()}.
     */
    public static final String CONTROL_PLANE_KUBECONFIG_ENV = "REACTIVE_INFORMER_CONTROL_PLANE_KUBECONFIG";
    /** System property with the same meaning as {@link #CONTROL_PLANE_KUBECONFIG_ENV}; wins over it. */
    public static final String CONTROL_PLANE_KUBECONFIG_PROPERTY = "reactive-informer.controlPlaneKubeconfig";

    private static final Duration HOOK_TIMEOUT = Duration.ofMinutes(3);
    /** Bounds a start that first has to build both binaries (a cold build takes several minutes). */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(60);

    private final Path directory;
    private final TestEnvScript script;
    private final URI serverUrl;
    private final Path kubeconfig;
    private final Identity admin;
    private final Identity restricted;
    private final String kubernetesVersion;
    private final Path tokenFile;
    private final Path binaries;
    private final boolean controlPlane;
    private final boolean owned;

    private KubeApiServer(Path directory, Properties properties, boolean owned) {
        this.directory = directory;
        this.owned = owned;
        this.script = TestEnvScript.at(Path.of(required(properties, "script")));
        this.serverUrl = URI.create(required(properties, "server"));
        this.kubeconfig = Path.of(required(properties, "kubeconfig"));
        Path ca = Path.of(required(properties, "caCert"));
        this.admin = new Identity("admin", Path.of(required(properties, "adminCert")),
                Path.of(required(properties, "adminKey")), ca);
        this.restricted = new Identity("restricted", Path.of(required(properties, "restrictedCert")),
                Path.of(required(properties, "restrictedKey")), ca);
        this.kubernetesVersion = required(properties, "kubernetesVersion");
        String token = properties.getProperty("tokenFile");
        this.tokenFile = token == null || token.isBlank() ? null : Path.of(token);
        this.binaries = Path.of(required(properties, "binDir"));
        this.controlPlane = Boolean.parseBoolean(properties.getProperty("controlPlane"));
    }

    /**
     * The environment to test against, in this order: the one whose {@code kubeconfig} the system property
     * {@value #KUBECONFIG_PROPERTY} or the environment variable {@value #KUBECONFIG_ENV} names (reused,
     * and left running by {@link #close()}); otherwise a new one started with {@code testenv/testenv.sh
     * start} (building kube-apiserver and etcd first when they are not cached, which takes minutes once),
     * stopped by {@link #close()}. {@code testenv/} is the directory named by the system property
     * {@value #TESTENV_DIR_PROPERTY}, or found by walking up from the working directory. Blocks until
     * the environment is ready.
     *
     * @throws IllegalStateException when it cannot be found or started
     */
    public static KubeApiServer startOrAttach() {
        return startOrAttach(System.getProperty(KUBECONFIG_PROPERTY, System.getenv(KUBECONFIG_ENV)), false);
    }

    /**
     * As {@link #startOrAttach()}, for an environment with the rest of a control plane: the one whose
     * {@code kubeconfig} the system property {@value #CONTROL_PLANE_KUBECONFIG_PROPERTY} or the environment
     * variable {@value #CONTROL_PLANE_KUBECONFIG_ENV} names, otherwise a new one started with
     * {@code testenv.sh start --control-plane}. It is a different environment from {@link #startOrAttach()}'s:
     * a cluster's controllers change what tests write (a {@code kube-root-ca.crt} ConfigMap in every namespace,
     * pods scheduled and run, Deployments' status), which tests of the API server alone must not see.
     *
     * @throws IllegalStateException when it cannot be found or started, or the one named runs no control plane
     */
    public static KubeApiServer startOrAttachControlPlane() {
        KubeApiServer server = startOrAttach(System.getProperty(CONTROL_PLANE_KUBECONFIG_PROPERTY,
                System.getenv(CONTROL_PLANE_KUBECONFIG_ENV)), true);
        if (!server.hasControlPlane()) {
            throw new IllegalStateException(server + " runs no control plane: " + CONTROL_PLANE_KUBECONFIG_ENV
                    + " must name the kubeconfig of an environment started with testenv.sh start --control-plane");
        }
        return server;
    }

    private static KubeApiServer startOrAttach(String kubeconfig, boolean controlPlane) {
        if (kubeconfig != null && !kubeconfig.isBlank()) {
            return attach(Path.of(kubeconfig).toAbsolutePath().getParent());
        }
        TestEnvScript script = TestEnvScript.locate(locateTestenv());
        Path dir;
        try {
            dir = Files.createTempDirectory("reactive-informer-testenv");
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        script.start(dir, START_TIMEOUT, controlPlane);
        return read(dir, true);
    }

    private static Path locateTestenv() {
        String configured = System.getProperty(TESTENV_DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("testenv").resolve(TestEnvScript.SCRIPT_NAME))) {
                return dir.resolve("testenv");
            }
        }
        throw new IllegalStateException("testenv/" + TestEnvScript.SCRIPT_NAME + " not found above "
                + Path.of("").toAbsolutePath() + "; set -D" + TESTENV_DIR_PROPERTY + "=<dir> or "
                + KUBECONFIG_ENV + "=<kubeconfig of a running environment>");
    }

    /**
     * The running environment that {@code testenv.sh start} described in {@code dir/testenv.properties};
     * {@link #close()} leaves it running.
     */
    public static KubeApiServer attach(Path dir) {
        return read(dir, false);
    }

    private static KubeApiServer read(Path dir, boolean owned) {
        Path file = dir.resolve("testenv.properties");
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        catch (IOException e) {
            throw new UncheckedIOException(file + " is unreadable: is " + dir
                    + " an environment started by testenv.sh and still running?", e);
        }
        return new KubeApiServer(dir, properties, owned);
    }

    private static String required(Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("testenv.properties has no " + key);
        }
        return value;
    }

    /** The kubeconfig file, with contexts {@code admin} (current), {@code restricted} and {@code token}; credentials inline. */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** {@code https://127.0.0.1:<port>}; stays the same across {@link #restartApiServer()}. */
    public URI serverUrl() {
        return serverUrl;
    }

    /** Member of {@code system:masters}: may do anything. */
    public Identity admin() {
        return admin;
    }

    /** Authenticated but granted nothing beyond discovery: reading or writing any resource answers 403. */
    public Identity restricted() {
        return restricted;
    }

    /**
     * A file holding a bearer token the kube-apiserver accepts (a static token of user {@code testenv-token},
     * in {@code system:masters}); the kubeconfig's context {@code token} uses it. A secret: tests that
     * check what gets logged look for it.
     *
     * @throws IllegalStateException for an environment started by a testenv.sh without token identities
     */
    public Path tokenFile() {
        if (tokenFile == null) {
            throw new IllegalStateException(directory + " was started without a token identity; restart it");
        }
        return tokenFile;
    }

    /**
     * Whether the environment runs the rest of a control plane (kube-controller-manager, kube-scheduler and
     * kwok's fake nodes), as {@code testenv.sh start --control-plane} starts it; see the class comment.
     */
    public boolean hasControlPlane() {
        return controlPlane;
    }

    /** The kube-apiserver's version, e.g. {@code v1.36.3}. */
    public String kubernetesVersion() {
        return kubernetesVersion;
    }

    /**
     * The {@code kubectl} of the same Kubernetes version, built beside kube-apiserver by {@code testenv/build.sh}.
     *
     * @throws IllegalStateException for binaries built before the build included kubectl; run {@code testenv/build.sh}
     */
    public Path kubectl() {
        Path kubectl = binaries.resolve("kubectl");
        if (!Files.isExecutable(kubectl)) {
            throw new IllegalStateException(kubectl + " is missing: run testenv/build.sh, which builds what is missing");
        }
        return kubectl;
    }

    /** The {@code testenv/} directory of the repository, holding among others {@code crds/}. */
    public Path testenvDirectory() {
        return script.testenvDirectory();
    }

    /**
     * Holds the certificates, logs ({@code kube-apiserver.log}, {@code etcd.log}, and with a control plane
     * {@code kube-controller-manager.log}, {@code kube-scheduler.log}, {@code kwok.log}) and etcd's data.
     */
    public Path directory() {
        return directory;
    }

    /**
     * Stops the kube-apiserver gracefully (SIGTERM: open watches end within 2 s, the process in about 3 s;
     * SIGKILL should it still run after 20 s); connections are refused until {@link #startApiServer()}.
     */
    public void stopApiServer() {
        script.run("stop-apiserver", directory, HOOK_TIMEOUT);
    }

    /** Starts the kube-apiserver on its previous port and returns once {@code /readyz} answers 200. */
    public void startApiServer() {
        script.run("start-apiserver", directory, HOOK_TIMEOUT);
    }

    /**
     * Stops then starts the kube-apiserver. As on a real cluster, its watch cache starts over at etcd's
     * current revision: a watch resumed from a resourceVersion older than that answers 410.
     */
    public void restartApiServer() {
        script.run("restart-apiserver", directory, HOOK_TIMEOUT);
    }

    /** Stops etcd: the kube-apiserver keeps running, and its {@code /readyz} fails until etcd is back. */
    public void stopEtcd() {
        script.run("stop-etcd", directory, HOOK_TIMEOUT);
    }

    /** Starts etcd on its previous port with its data and returns once it is ready. */
    public void startEtcd() {
        script.run("start-etcd", directory, HOOK_TIMEOUT);
    }

    /** Stops then starts etcd, keeping its data. */
    public void restartEtcd() {
        script.run("restart-etcd", directory, HOOK_TIMEOUT);
    }

    /**
     * Kills the kube-apiserver with SIGKILL, as a crash or an OOM kill would: connections reset, no
     * graceful end of watches. {@link #startApiServer()} brings it back.
     */
    public void killApiServer() {
        script.run("kill-apiserver", directory, HOOK_TIMEOUT);
    }

    /** Kills etcd with SIGKILL (its data survives: writes are on disk); {@link #startEtcd()} brings it back. */
    public void killEtcd() {
        script.run("kill-etcd", directory, HOOK_TIMEOUT);
    }

    /**
     * Stops then starts kube-controller-manager, and returns once its {@code /healthz} answers; it then
     * takes its leader lease again before its controllers act. Only with {@link #hasControlPlane()}.
     */
    public void restartControllerManager() {
        script.run("restart-controller-manager", directory, HOOK_TIMEOUT);
    }

    /**
     * Kills kube-controller-manager with SIGKILL: its controllers stop acting until
     * {@link #startControllerManager()}. Only with {@link #hasControlPlane()}.
     */
    public void killControllerManager() {
        script.run("kill-controller-manager", directory, HOOK_TIMEOUT);
    }

    /** Starts kube-controller-manager and returns once its {@code /healthz} answers. Only with {@link #hasControlPlane()}. */
    public void startControllerManager() {
        script.run("start-controller-manager", directory, HOOK_TIMEOUT);
    }

    /** Stops then starts kube-scheduler, and returns once its {@code /healthz} answers. Only with {@link #hasControlPlane()}. */
    public void restartScheduler() {
        script.run("restart-scheduler", directory, HOOK_TIMEOUT);
    }

    /**
     * Kills kube-scheduler with SIGKILL: new pods stay unscheduled until {@link #startScheduler()}. Only with
     * {@link #hasControlPlane()}.
     */
    public void killScheduler() {
        script.run("kill-scheduler", directory, HOOK_TIMEOUT);
    }

    /** Starts kube-scheduler and returns once its {@code /healthz} answers. Only with {@link #hasControlPlane()}. */
    public void startScheduler() {
        script.run("start-scheduler", directory, HOOK_TIMEOUT);
    }

    /**
     * Saves etcd's data as snapshot {@code name} (letters, digits, {@code . _ -}), replacing one of that
     * name. etcd is stopped for the copy, a second or two that the kube-apiserver sees as an etcd outage.
     */
    public void snapshotEtcd(String name) {
        script.run("snapshot-etcd", directory, HOOK_TIMEOUT, name);
    }

    /**
     * Puts etcd back on snapshot {@code name}: the data and the revision counter as they were when it was
     * taken, as a restore from backup without a revision bump does. The kube-apiserver keeps running on
     * its watch cache; {@link #restartApiServer()} makes it start over from the restored data, as an
     * operator restoring a cluster does. Afterwards resourceVersions handed out after the snapshot are in
     * the store's future until its revision passes them again.
     */
    public void restoreEtcd(String name) {
        script.run("restore-etcd", directory, HOOK_TIMEOUT, name);
    }

    /**
     * Makes every resourceVersion handed out so far too old, and returns the etcd revision compacted to.
     * Afterwards a WATCH from such a resourceVersion answers an ERROR event with a 410 Status ("too old
     * resource version"), and a LIST at such an exact resourceVersion, or with a continue token issued
     * before, answers 410.
     *
     * <p>It writes one etcd key (so the revision moves past every issued resourceVersion), compacts etcd
     * to the current revision, and restarts the kube-apiserver. The restart is what makes the watch
     * answer deterministic: watches are served from the apiserver's watch cache, whose window starts at
     * the revision the cache was initialized at and is not shortened by etcd compaction.
     */
    public long compact() {
        return Long.parseLong(script.run("compact", directory, HOOK_TIMEOUT));
    }

    /**
     * Creates the CustomResourceDefinition in {@code yaml} (one document; relative paths resolve against
     * {@link #testenvDirectory()}) unless it exists, and returns once it is established and its resource
     * is served.
     */
    public InstalledCrd installCrd(Path yaml) {
        return new CrdInstaller(serverUrl, admin).install(testenvDirectory().resolve(yaml));
    }

    /** Stops the environment if {@link #startOrAttach()} started it; leaves one it attached to running. */
    @Override
    public void close() {
        if (owned) {
            script.run("stop", directory, HOOK_TIMEOUT);
        }
    }

    @Override
    public String toString() {
        return "KubeApiServer[" + serverUrl + ", " + kubernetesVersion + ", " + directory + "]";
    }

    /**
     * A client certificate the kube-apiserver accepts, with the CA that signed its serving certificate.
     *
     * @param context the kubeconfig context that uses this identity
     * @param certificate PEM certificate
     * @param privateKey PEM PKCS#8 private key (EC P-256)
     * @param caCertificate PEM certificate of the CA to trust for the server
     */
    public record Identity(String context, Path certificate, Path privateKey, Path caCertificate) {

        /** A TLS context presenting this identity and trusting only the environment's CA. */
        public SSLContext sslContext() {
            return PemSslContext.create(certificate, privateKey, caCertificate);
        }
    }

    /**
     * A CustomResourceDefinition that {@link #installCrd(Path)} made available.
     *
     * @param name the CRD's name, {@code <plural>.<group>}
     * @param group API group
     * @param version the storage version
     * @param plural resource name in URLs
     * @param namespaced whether objects live in namespaces
     */
    public record InstalledCrd(String name, String group, String version, String plural, boolean namespaced) {

        /** The collection path, e.g. {@code /apis/g/v1/namespaces/ns/widgets}; {@code namespace} ignored if cluster-scoped. */
        public String collectionPath(String namespace) {
            return "/apis/" + group + "/" + version + (namespaced ? "/namespaces/" + namespace : "") + "/" + plural;
        }
    }
}
