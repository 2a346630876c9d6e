package io.reactiveinformer.e2e.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import io.reactiveinformer.test.server.ClusterState;
import io.reactiveinformer.test.server.SimulatedApiServer;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * kubectl pointed at the test kit's simulated server: one session of a user's everyday commands, run
 * against the simulated server and against kube-apiserver with the same kubectl (built beside it by
 * {@code testenv/build.sh}), must succeed on both and leave the same objects.
 *
 * <p>kubectl validates every write against the server's OpenAPI v3 documents, which the simulated server
 * serves for its default group-versions (kube-apiserver's own). Creating from flags ({@code kubectl create
 * configmap ...}) sends protobuf, which the simulated server answers with 415; from files ({@code -f})
 * kubectl sends JSON. That is in the README's list of what differs.
 */
@KubeApiServerTest
class KubectlSessionTest {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final long LIVENESS_SECONDS = 120;

    @Test
    void theSameSessionSucceedsOnBothServersAndLeavesTheSameObjects(KubeApiServer env, @TempDir Path dir) throws Exception {
        String namespace = "kubectl-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        Session real = new Session(env.kubectl(), env.kubeconfig(), dir.resolve("real"), namespace);
        try (SimulatedApiServer server = SimulatedApiServer.start(ClusterState.builder().build())) {
            Path kubeconfig = dir.resolve("simulated.kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: simulated
                      cluster:
                        server: %s
                    contexts:
                    - name: simulated
                      context:
                        cluster: simulated
                        user: anyone
                    current-context: simulated
                    users:
                    - name: anyone
                      user: {}
                    """.formatted(server.url()));
            Session simulated = new Session(env.kubectl(), kubeconfig, dir.resolve("simulated"), namespace);

            Map<String, String> onReal = real.play();
            Map<String, String> onSimulated = simulated.play();

            assertThat(onSimulated).isEqualTo(onReal);
            assertThat(onReal).containsEntry("server version", "1.36")
                    .containsEntry("d1 after client-side apply of a sidecar", "sidecar s:1 , app a:2 "
                            + "[{\"name\":\"B\",\"value\":\"2\"},{\"name\":\"A\",\"value\":\"1\"}]")
                    .containsEntry("c1 after apply --server-side", "{\"data\":{\"a\":\"8\",\"b\":\"2\",\"c\":\"3\",\"d\":\"4\",\"e\":\"5\"},"
                            + "\"labels\":{\"app\":\"demo\"}}");
            Set<String> realResources = lines(real.kubectl("api-resources", "-o", "name"));
            Set<String> simulatedResources = lines(simulated.kubectl("api-resources", "-o", "name"));
            assertThat(realResources).containsAll(simulatedResources);
            assertThat(simulatedResources).contains("configmaps", "namespaces", "pods", "secrets", "deployments.apps",
                    "leases.coordination.k8s.io");
        } finally {
            real.run(List.of("delete", "namespace", namespace, "--wait=false"));
        }
    }

    private static Set<String> lines(String text) {
        return new TreeSet<>(Arrays.asList(text.strip().split("\n")));
    }

    /** One backend: kubectl with its kubeconfig, and a directory for the manifests. */
    private record Session(Path binary, Path kubeconfig, Path manifests, String namespace) {

        /** The session; answers what each step left, normalized so that both servers can be compared. */
        Map<String, String> play() throws IOException {
            Files.createDirectories(manifests);
            Map<String, String> seen = new LinkedHashMap<>();
            JsonNode version = JSON.readTree(kubectl("version", "-o", "json")).path("serverVersion");
            seen.put("server version", version.path("major").asString() + "." + version.path("minor").asString());
            for (String groupVersion : List.of("api/v1", "apis/apps/v1", "apis/coordination.k8s.io/v1")) {
                // what kubectl validates against: the same document (a hash of its tree, key order aside)
                seen.put("OpenAPI v3 " + groupVersion, Integer.toHexString(
                        JSON.readTree(kubectl("get", "--raw", "/openapi/v3/" + groupVersion)).hashCode()));
            }

            kubectl("create", "-f", manifest("ns.yaml", """
                    apiVersion: v1
                    kind: Namespace
                    metadata:
                      name: %s
                    """.formatted(namespace)));
            kubectl("create", "-f", configMap("c1", "a: \"1\""));
            seen.put("c1 created", dataAndLabels("c1"));

            kubectl("patch", "configmap", "c1", "-n", namespace, "--type=merge", "-p", "{\"data\":{\"b\":\"2\"}}");
            kubectl("patch", "configmap", "c1", "-n", namespace, "--type=json",
                    "-p", "[{\"op\":\"add\",\"path\":\"/data/c\",\"value\":\"3\"}]");
            kubectl("patch", "configmap", "c1", "-n", namespace, "-p", "{\"data\":{\"d\":\"4\"}}");
            seen.put("c1 after merge, JSON and strategic patches", dataAndLabels("c1"));

            kubectl("apply", "-f", configMap("c1", "a: \"7\"\n  b: \"2\"\n  c: \"3\"\n  d: \"4\""));
            seen.put("c1 after client-side apply", dataAndLabels("c1"));

            String serverSide = configMap("c1", "a: \"8\"\n  e: \"5\"");
            kubectl("apply", "--server-side", "--force-conflicts", "-f", serverSide);
            seen.put("c1 after apply --server-side", dataAndLabels("c1"));
            seen.put("c1's last-applied annotation after apply --server-side", lastApplied("c1"));
            seen.put("diff after apply --server-side", String.valueOf(run(List.of("diff", "-f", serverSide)).exit()));

            // client-side apply of a changed Deployment sends $setElementOrder lists: a strategic merge by name
            kubectl("apply", "-f", deployment("d1", """
                    - name: app
                      image: a:1
                      env: [{name: A, value: "1"}]
                    """));
            kubectl("apply", "-f", deployment("d1", """
                    - name: sidecar
                      image: s:1
                    - name: app
                      image: a:2
                      env: [{name: B, value: "2"}, {name: A, value: "1"}]
                    """));
            seen.put("d1 after client-side apply of a sidecar", containers("d1"));
            kubectl("patch", "deployment", "d1", "-n", namespace,
                    "-p", "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"app\",\"$patch\":\"delete\"}]}}}}");
            seen.put("d1 after a strategic patch deleting app", containers("d1"));

            try (Watch watch = new Watch(this, "get", "configmaps", "-n", namespace, "--watch", "-o", "name")) {
                kubectl("create", "-f", configMap("c2", "x: \"1\""));
                seen.put("watch saw", watch.awaitLine("configmap/c2"));
            }

            kubectl("delete", "-f", manifests.resolve("c1.yaml").toString());
            Result gone = run(List.of("get", "configmap", "c1", "-n", namespace));
            seen.put("get after delete", gone.exit() + " " + gone.stderr().strip());
            return seen;
        }

        String deployment(String name, String containers) throws IOException {
            return manifest(name + ".yaml", """
                    apiVersion: apps/v1
                    kind: Deployment
                    metadata:
                      name: %s
                      namespace: %s
                    spec:
                      selector:
                        matchLabels: {app: %s}
                      template:
                        metadata:
                          labels: {app: %s}
                        spec:
                          containers:
                    %s""".formatted(name, namespace, name, name, containers.indent(10)));
        }

        /** The names, images and env of a Deployment's containers, in order. */
        String containers(String deployment) {
            JsonNode object = JSON.readTree(kubectl("get", "deployment", deployment, "-n", namespace, "-o", "json"));
            List<String> containers = new ArrayList<>();
            for (JsonNode c : object.path("spec").path("template").path("spec").path("containers")) {
                containers.add(c.path("name").asString() + " " + c.path("image").asString() + " " + c.path("env"));
            }
            return String.join(", ", containers);
        }

        String configMap(String name, String data) throws IOException {
            return manifest(name + ".yaml", """
                    apiVersion: v1
                    kind: ConfigMap
                    metadata:
                      name: %s
                      namespace: %s
                      labels:
                        app: demo
                    data:
                      %s
                    """.formatted(name, namespace, data));
        }

        String manifest(String name, String text) throws IOException {
            Path file = manifests.resolve(name);
            Files.writeString(file, text);
            return file.toString();
        }

        /** The object's data and labels as JSON, keys sorted (what both servers must agree on). */
        String dataAndLabels(String configMap) {
            JsonNode object = JSON.readTree(kubectl("get", "configmap", configMap, "-n", namespace, "-o", "json"));
            ObjectNode kept = JSON.createObjectNode();
            kept.set("data", object.path("data"));
            kept.set("labels", object.path("metadata").path("labels"));
            return JSON.writeValueAsString(JSON.readTree(JSON.writeValueAsString(kept)));
        }

        /** Client-side apply's annotation, as the server keeps it in step with kubectl's server-side applies. */
        String lastApplied(String configMap) {
            JsonNode object = JSON.readTree(kubectl("get", "configmap", configMap, "-n", namespace, "-o", "json"));
            return object.path("metadata").path("annotations").path("kubectl.kubernetes.io/last-applied-configuration")
                    .asString();
        }

        /** Runs kubectl; fails the test unless it exits 0; answers its standard output. */
        String kubectl(String... args) {
            Result result = run(List.of(args));
            assertThat(result.exit()).as("kubectl %s against %s: %s", String.join(" ", args), kubeconfig, result.stderr())
                    .isZero();
            return result.stdout();
        }

        Result run(List<String> args) {
            try {
                // to files: a pipe nobody reads until the end would stall kubectl on a large output
                Path out = Files.createTempFile(manifests, "stdout", ".txt");
                Path err = Files.createTempFile(manifests, "stderr", ".txt");
                Process process = start(args, out, err);
                // a liveness bound: kubectl talks to a local server
                if (!process.waitFor(LIVENESS_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("kubectl " + args + " still running after " + LIVENESS_SECONDS + " s");
                }
                return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        /** Starts kubectl with {@code args}, its output to {@code out} and {@code err} (or pipes, when null). */
        Process start(List<String> args, Path out, Path err) throws IOException {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--kubeconfig", kubeconfig.toString()));
            command.addAll(args);
            ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            if (out != null) {
                builder.redirectOutput(out.toFile()).redirectError(err.toFile());
            }
            builder.environment().put("HOME", manifests.toString());   // kubectl's cache, per backend
            return builder.start();
        }
    }

    private record Result(int exit, String stdout, String stderr) {
    }

    /** A {@code kubectl get --watch} running beside the session. */
    private static final class Watch implements AutoCloseable {

        private final Process process;
        private final BufferedReader lines;

        Watch(Session session, String... args) throws IOException {
            process = session.start(List.of(args), null, null);
            lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        /** Reads lines until {@code expected}; answers it, or fails if the watch ends first. */
        String awaitLine(String expected) throws IOException {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.strip().equals(expected)) {
                    return line.strip();
                }
            }
            throw new AssertionError("the watch ended before " + expected + ": "
                    + new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }
}
