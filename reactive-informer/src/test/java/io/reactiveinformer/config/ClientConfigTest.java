package io.reactiveinformer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ClientConfigTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void mergesKubeconfigFilesFirstDefinitionWinning() throws IOException {
        Path a = write("a/config", """
                apiVersion: v1
                kind: Config
                current-context: alpha
                clusters:
                - name: shared
                  cluster: {server: "https://a.example:6443", insecure-skip-tls-verify: true}
                users:
                - name: alice
                  user: {token: token-a}
                contexts:
                - name: alpha
                  context: {cluster: shared, user: alice, namespace: shop}
                """);
        Path b = write("b/config", """
                apiVersion: v1
                kind: Config
                current-context: beta
                clusters:
                - name: shared
                  cluster: {server: "https://ignored.example"}
                - name: second
                  cluster: {server: "https://b.example:443/prefix"}
                users:
                - name: bob
                  user: {tokenFile: token.txt}
                contexts:
                - name: beta
                  context: {cluster: second, user: bob}
                """);
        write("b/token.txt", "token-b\n");
        Map<String, String> env = Map.of("KUBECONFIG", a + java.io.File.pathSeparator + dir.resolve("missing")
                + java.io.File.pathSeparator + b);

        ClientConfig current = ClientConfig.load(env, dir.resolve("home"), dir.resolve("sa"));
        assertThat(current.server()).isEqualTo(URI.create("https://a.example:6443"));
        assertThat(current.namespace()).isEqualTo("shop");
        assertThat(current.contextNamespace()).contains("shop");
        assertThat(current.insecureSkipTlsVerify()).isTrue();
        StepVerifier.create(current.credentials().bearerToken()).expectNext("token-a").verifyComplete();

        ClientConfig beta = ClientConfig.fromKubeconfig(List.of(a, b), "beta");
        assertThat(beta.server()).isEqualTo(URI.create("https://b.example:443/prefix"));
        assertThat(beta.namespace()).isEqualTo("default");
        assertThat(beta.contextNamespace()).isEmpty();
        assertThat(beta.insecureSkipTlsVerify()).isFalse();
        StepVerifier.create(beta.credentials().bearerToken().subscribeOn(Schedulers.parallel()))
                .expectNext("token-b").verifyComplete();

        assertThatThrownBy(() -> ClientConfig.fromKubeconfig(List.of(a, b), "gamma"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("\"gamma\"").hasMessageContaining("alpha");
    }

    @Test
    void homeKubeconfigWhenKubeconfigIsUnset() throws IOException {
        write("home/.kube/config", """
                current-context: c
                clusters: [{name: k, cluster: {server: "https://home.example"}}]
                contexts: [{name: c, context: {cluster: k}}]
                """);
        assertThat(ClientConfig.load(Map.of(), dir.resolve("home"), dir.resolve("sa")).server().getHost())
                .isEqualTo("home.example");
    }

    @Test
    void clientCertificatesAndCaFromDataAndFiles() throws IOException {
        TestPki pki = new TestPki();
        TestPki.Issued rsa = pki.client(false);
        TestPki.Issued ec = pki.client(true);
        write("pki/ca.crt", pki.ca().certificatePem());
        write("pki/ec.crt", ec.certificatePem());
        write("pki/ec.key", ec.keyPemTraditional());
        Path config = write("pki/config", """
                current-context: rsa
                clusters:
                - name: k
                  cluster: {server: "https://127.0.0.1:6443", certificate-authority: ca.crt}
                users:
                - name: rsa1
                  user: {client-certificate-data: %s, client-key-data: %s}
                - name: rsa8
                  user: {client-certificate-data: %s, client-key-data: %s}
                - name: ec
                  user: {client-certificate: ec.crt, client-key: ec.key}
                contexts:
                - {name: rsa, context: {cluster: k, user: rsa1}}
                - {name: rsa-pkcs8, context: {cluster: k, user: rsa8}}
                - {name: ec, context: {cluster: k, user: ec}}
                """.formatted(b64(rsa.certificatePem()), b64(rsa.keyPemTraditional()), b64(rsa.certificatePem()),
                b64(rsa.keyPemPkcs8())));

        assertThat(rsa.keyPemTraditional()).contains("BEGIN RSA PRIVATE KEY");
        assertThat(rsa.keyPemPkcs8()).contains("BEGIN PRIVATE KEY");
        assertThat(ec.keyPemTraditional()).contains("BEGIN EC PRIVATE KEY");
        for (String context : List.of("rsa", "rsa-pkcs8", "ec")) {
            ClientConfig c = ClientConfig.fromKubeconfig(List.of(config), context);
            assertThat(c.caCertificates()).containsExactly(pki.ca().certificate());
            TestPki.Issued expected = context.equals("ec") ? ec : rsa;
            assertThat(c.clientCertificates()).containsExactly(expected.certificate());
            assertThat(secret(c.clientKey())).isEqualTo(secret(expected.privateKey()));
        }
    }

    @Test
    void inClusterFromServiceAccountDirectory() throws IOException {
        TestPki pki = new TestPki();
        write("sa/token", "sa-token");
        write("sa/ca.crt", pki.ca().certificatePem());
        write("sa/namespace", "controllers\n");

        ClientConfig config = ClientConfig.load(Map.of("KUBERNETES_SERVICE_HOST", "fd00::1", "KUBERNETES_SERVICE_PORT", "443"),
                dir.resolve("home"), dir.resolve("sa"));

        assertThat(config.server()).isEqualTo(URI.create("https://[fd00::1]:443"));
        assertThat(config.namespace()).isEqualTo("controllers");
        assertThat(config.contextNamespace()).isEmpty();
        assertThat(config.caCertificates()).containsExactly(pki.ca().certificate());
        StepVerifier.create(config.credentials().bearerToken()).expectNext("sa-token").verifyComplete();
    }

    @Test
    void noConfigurationAtAllIsAClearError() {
        assertThatThrownBy(() -> ClientConfig.load(Map.of(), dir.resolve("home"), dir.resolve("sa")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("KUBERNETES_SERVICE_HOST");
    }

    /** Read on boundedElastic although asked from a parallel thread (BlockHound would fail the read there). */
    @Test
    void tokenFileIsReReadWhenItRotates() throws IOException {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        Path token = write("rotating/token", "one");
        Credentials credentials = Credentials.tokenFile(token, clock);

        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel())).expectNext("one").verifyComplete();
        Files.writeString(token, "two");
        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel())).expectNext("one").verifyComplete();
        clock.advanceTimeBy(Duration.ofSeconds(61));
        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel())).expectNext("two").verifyComplete();
        Files.writeString(token, "three");
        credentials.invalidate("two");
        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel())).expectNext("three").verifyComplete();
    }

    @Test
    void execPluginRunsAgainWhenItsCredentialExpires() throws IOException {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        Path script = write("exec/plugin.sh", new String(getClass().getResourceAsStream("/exec/credential-plugin.sh")
                .readAllBytes(), StandardCharsets.UTF_8));
        Path runs = dir.resolve("exec/runs");
        Path config = write("exec/config", """
                current-context: c
                clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]
                contexts: [{name: c, context: {cluster: k, user: u}}]
                users:
                - name: u
                  user:
                    exec:
                      apiVersion: client.authentication.k8s.io/v1
                      command: sh
                      args: [%s]
                      env:
                      - {name: RUNS_FILE, value: %s}
                      - {name: EXPIRY, value: "1970-01-01T00:10:00Z"}
                      interactiveMode: Never
                """.formatted(script, runs));
        Credentials credentials = Kubeconfig.load(List.of(config), null, clock).credentials();

        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel()))
                .expectNext("exec-token-1").verifyComplete();
        StepVerifier.create(credentials.bearerToken()).expectNext("exec-token-1").verifyComplete();
        clock.advanceTimeBy(Duration.ofMinutes(11));
        StepVerifier.create(credentials.bearerToken().subscribeOn(Schedulers.parallel()))
                .expectNext("exec-token-2").verifyComplete();
        assertThat(Files.readString(runs).trim()).isEqualTo("2");
    }

    @Test
    void failingExecPluginNamesTheCommandNotTheToken() throws IOException {
        Path config = write("fail/config", """
                current-context: c
                clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]
                contexts: [{name: c, context: {cluster: k, user: u}}]
                users: [{name: u, user: {exec: {command: sh, args: ["-c", "exit 7"]}}}]
                """);
        StepVerifier.create(ClientConfig.fromKubeconfig(List.of(config), null).credentials().bearerToken())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("exec credential plugin sh exited with status 7"))
                .verify(WAIT);
    }

    private static java.math.BigInteger secret(java.security.PrivateKey key) {
        return key instanceof java.security.interfaces.ECPrivateKey ec ? ec.getS()
                : ((java.security.interfaces.RSAPrivateKey) key).getPrivateExponent();
    }

    private Path write(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.US_ASCII));
    }
}
