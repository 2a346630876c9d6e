package io.reactiveinformer.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Secret;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.informer.SharedIndexInformer;
import io.reactiveinformer.informer.SharedInformerFactory;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * What the library promises in SECURITY.md, against the real kube-apiserver: TLS verified by default
 * (an unknown CA is refused with a clear error), skipped only when the kubeconfig says so and then with
 * a warning; client certificates, bearer tokens, a rotating token file and exec plugins authenticate;
 * and no secret (token, private key, exec plugin output, a Secret's data) appears in any log line at
 * TRACE, exception message or {@code toString} of a run that exercises all of them, successes and
 * failures alike.
 */
@KubeApiServerTest
class SecurityTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final KubeApiServer env;
    /** Every exception text and toString the run produced, searched with the logs at the end. */
    private final List<String> texts = new ArrayList<>();
    private final List<KubernetesClient> clients = new ArrayList<>();
    @TempDir
    Path dir;

    SecurityTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeEach
    void capture() {
        CapturedLogs.start();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(KubernetesClient::close);
        CapturedLogs.stop();
    }

    @Test
    void anUnknownCertificateAuthorityIsRefusedWithAClearError() throws IOException {
        Path kubeconfig = kubeconfig("", "    token: " + token());  // no certificate-authority-data: the JVM's CAs

        Throwable error = list(client(kubeconfig));

        assertThat(error).isInstanceOf(TransportException.class)
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("certificate-authority");
        assertThat(Stream.iterate(error, Objects::nonNull, Throwable::getCause))
                .anySatisfy(cause -> assertThat(cause).isInstanceOf(SSLHandshakeException.class));
    }

    @Test
    void insecureSkipTlsVerifyOnlyWhenTheKubeconfigSaysSoAndThenWithAWarning() throws IOException {
        Path kubeconfig = kubeconfig("    insecure-skip-tls-verify: true\n", "    token: " + token());

        assertThat(list(client(kubeconfig))).isNull();
        assertThat(CapturedLogs.stop()).anySatisfy(line -> assertThat(line)
                .startsWith("WARN").contains("TLS verification of " + env.serverUrl() + " is off"));
        assertThat(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "token").insecureSkipTlsVerify())
                .as("the default").isFalse();
    }

    @Test
    void noSecretInLogsExceptionsOrToStringWhileEveryCredentialKindIsUsed() throws IOException {
        String token = token();
        String wrongToken = randomHex();
        String secretValue = "s3cret-" + randomHex();
        String keyPem = Files.readString(env.admin().privateKey(), StandardCharsets.US_ASCII);

        // client certificate (the admin context): a Secret informer sees a Secret created, changed, deleted
        KubernetesClient admin = client(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
        String namespace = "security-" + randomHex().substring(0, 10);
        admin.resource(V1Namespace.class).create(new V1Namespace().apiVersion("v1").kind("Namespace")
                .metadata(new V1ObjectMeta().name(namespace))).block(DEADLINE);
        ResourceClient<V1Secret> secrets = admin.resource(V1Secret.class).inNamespace(namespace);
        SharedInformerFactory factory = SharedInformerFactory.builder(admin).build();
        SharedIndexInformer<V1Secret> informer = factory.informer(V1Secret.class);
        Disposable logging = informer.notifications().subscribe(n -> texts.add(n.key()));
        factory.start();
        StepVerifier.create(informer.hasSynced()).expectComplete().verify(DEADLINE);
        secrets.create(new V1Secret().apiVersion("v1").kind("Secret").metadata(new V1ObjectMeta().name("db"))
                .stringData(Map.of("password", secretValue))).block(DEADLINE);
        secrets.patch("db", PatchType.MERGE, "{\"stringData\":{\"password\":\"" + secretValue + "-2\"}}").block(DEADLINE);
        StepVerifier.create(Convergence.until(() -> informer.indexer()
                        .getByKey(namespace + "/db").map(s -> s.getMetadata().getResourceVersion() != null
                                && s.getData() != null && new String(s.getData().get("password"), StandardCharsets.UTF_8)
                                .endsWith("-2")).orElse(false), DEADLINE, Schedulers.parallel()))
                .expectComplete().verify(DEADLINE);
        secrets.delete("db").block(DEADLINE);
        texts.add(String.valueOf(informer));
        texts.add(String.valueOf(factory));
        logging.dispose();
        factory.shutdown().block(DEADLINE);

        // a static bearer token, and a wrong one
        assertThat(list(client(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "token")))).isNull();
        Path wrong = kubeconfig(ca(), "    token: " + wrongToken);
        assertThat(list(client(wrong))).isInstanceOf(KubernetesApiException.Unauthorized.class);

        // a token file that rotates: a stale token is refused, then the file's new one is read and accepted
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, wrongToken);
        KubernetesClient rotating = client(kubeconfig(ca(), "    tokenFile: " + tokenFile));
        assertThat(list(rotating)).isInstanceOf(KubernetesApiException.Unauthorized.class);
        Files.writeString(tokenFile, token + "\n");
        assertThat(list(rotating)).as("the token file's new content after the 401").isNull();

        // an exec plugin, and a broken one that prints the bare token instead of an ExecCredential
        Path plugin = script("plugin.sh", "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                + "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' \"$(cat " + env.tokenFile() + ")\"");
        assertThat(list(client(kubeconfig(ca(), exec(plugin))))).isNull();
        Path broken = script("broken.sh", "cat " + env.tokenFile());
        assertThat(list(client(kubeconfig(ca(), exec(broken)))))
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("printed no ExecCredential JSON");

        List<String> logs = CapturedLogs.stop();
        assertThat(logs).as("TRACE logging of the library was on").anySatisfy(line -> assertThat(line)
                .startsWith("DEBUG io.reactiveinformer"));
        List<String> secretsToFind = new ArrayList<>(List.of(token, wrongToken, secretValue,
                Base64.getEncoder().encodeToString(secretValue.getBytes(StandardCharsets.UTF_8)),
                Base64.getEncoder().encodeToString(keyPem.getBytes(StandardCharsets.US_ASCII))));
        keyPem.lines().filter(line -> !line.startsWith("-----") && line.length() >= 16).forEach(secretsToFind::add);
        List<String> everything = new ArrayList<>(logs);
        everything.addAll(texts);
        for (String secret : secretsToFind) {
            assertThat(everything).as("no line holds a secret").noneSatisfy(line -> assertThat(line).contains(secret));
        }
        assertThat(everything).noneSatisfy(line -> assertThat(line).contains(namespace + "/db").contains("password"));
    }

    // ---- helpers

    private String token() throws IOException {
        return Files.readString(env.tokenFile(), StandardCharsets.US_ASCII).trim();
    }

    private static String randomHex() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private String ca() throws IOException {
        return "    certificate-authority-data: "
                + Base64.getEncoder().encodeToString(Files.readAllBytes(env.admin().caCertificate())) + "\n";
    }

    private static String exec(Path command) {
        return "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + command
                + "\n      interactiveMode: Never";
    }

    private Path script(String name, String body) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    /** A kubeconfig with one context: the environment's server with {@code cluster} lines, and {@code user}. */
    private Path kubeconfig(String cluster, String user) throws IOException {
        Path file = Files.createTempFile(dir, "kubeconfig", ".yaml");
        Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: "
                + env.serverUrl() + "\n" + cluster + "users:\n- name: u\n  user:\n" + user + "\ncontexts:\n"
                + "- name: t\n  context:\n    cluster: c\n    user: u\ncurrent-context: t\n");
        return file;
    }

    private KubernetesClient client(Path kubeconfig) {
        return client(ClientConfig.fromKubeconfig(List.of(kubeconfig), "t"));
    }

    private KubernetesClient client(ClientConfig config) {
        texts.add(config.toString());
        texts.add(String.valueOf(config.credentials()));
        KubernetesClient client = KubernetesClient.create(config);
        texts.add(client.toString());
        clients.add(client);
        return client;
    }

    /** Lists namespaces; returns the error (its text is kept for the search), or null on success. */
    private Throwable list(KubernetesClient client) {
        Throwable error = catchThrowable(() -> client.resource(V1Namespace.class).list(ListOptions.none().withLimit(1))
                .block(DEADLINE));
        if (error != null) {
            StringWriter trace = new StringWriter();
            error.printStackTrace(new PrintWriter(trace));
            texts.add(trace.toString());
            texts.add(error.toString());
        }
        return error;
    }
}
