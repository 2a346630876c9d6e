package io.reactiveinformer.e2e.leader;

import static io.reactiveinformer.e2e.leader.LeaseNamespace.DEADLINE;
import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.WatchEvent;
import io.reactiveinformer.api.WatchOptions;
import io.reactiveinformer.client.ResourceClient;
import io.reactiveinformer.test.Convergence;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import io.reactiveinformer.test.junit.KubeApiServerTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Schedulers;

/**
 * Fenced writes on the real kube-apiserver: two replicas of a leader-elected controller, each in its own JVM
 * (lease 3 s, renew deadline 2 s, retry 0.5 s), whose one reconcile patches the ConfigMap {@code target} every
 * 20 ms with its identity. Round after round the leader is paused with {@code SIGSTOP} mid-reconcile, the other
 * takes over and writes, then the paused one is resumed ({@code SIGCONT}). Every write's order on the server is
 * read from a watch of the object (its events come in resourceVersion order). No write of the paused replica
 * may land after its successor's first write.
 *
 * <p>The residual window, stated in {@code WriteFence}: a replica paused after the fence admitted a write and
 * before the write's bytes left the process would still land it on resuming. With writes that take
 * milliseconds every 20 ms, a pause lands in those microseconds rarely; the assertion below is that it did not.
 */
@KubeApiServerTest
class FencedWritesE2eTest {

    private static final Logger log = LoggerFactory.getLogger(FencedWritesE2eTest.class);
    private static final int ROUNDS = 4;

    private final KubeApiServer env;
    private LeaseNamespace namespace;
    private ResourceClient<V1ConfigMap> maps;
    /** The writer of every change of {@code target}, in the server's order. */
    private final List<String> writers = new CopyOnWriteArrayList<>();
    private Disposable watch;
    private final List<Replica> replicas = new ArrayList<>();

    FencedWritesE2eTest(KubeApiServer env) {
        this.env = env;
    }

    @BeforeEach
    void createTarget() {
        namespace = new LeaseNamespace(env, "fencing");
        maps = namespace.admin.resource(V1ConfigMap.class).inNamespace(namespace.name);
        V1ConfigMap created = maps.create(new V1ConfigMap().apiVersion("v1").kind("ConfigMap")
                .metadata(new V1ObjectMeta().name("target")).data(Map.of("k", "v"))).block(DEADLINE);
        watch = maps.watch(WatchOptions.from(created.getMetadata().getResourceVersion())
                        .withSelectors(null, "metadata.name=target").withTimeoutSeconds(600))
                .filter(e -> e.type() == WatchEvent.Type.MODIFIED)
                .subscribe(e -> writers.add(e.object().getMetadata().getAnnotations().getOrDefault("writer", "")));
    }

    @AfterEach
    void stop() {
        replicas.forEach(Replica::kill);
        watch.dispose();
        namespace.close();
    }

    /** A replica's JVM, its output read into {@link #lines}. */
    private final class Replica {
        final String identity;
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();

        Replica(String identity, boolean fenced) throws IOException {
            this.identity = identity;
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            process = new ProcessBuilder(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), FencingReplica.class.getName(),
                    env.kubeconfig().toString(), namespace.name, identity, fenced ? "fenced" : "unfenced")
                    .redirectErrorStream(true).start();
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (IOException closed) {
                    // the process is gone
                }
            }, "replica-" + identity + "-output");
            reader.setDaemon(true);
            reader.start();
            replicas.add(this);
        }

        long count(String prefix) {
            return lines.stream().filter(l -> l.startsWith(prefix)).count();
        }

        void signal(String signal) throws IOException, InterruptedException {
            assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor())
                    .as("kill -%s %s", signal, identity).isZero();
        }

        void kill() {
            process.destroyForcibly();
        }
    }

    private void await(String what, BooleanSupplier condition) {
        Convergence.until(condition, DEADLINE, Schedulers.parallel())
                .doOnError(e -> {
                    log.error("not reached within {}: {}; {} writes seen, the last {}", DEADLINE, what, writers.size(),
                            writers.subList(Math.max(0, writers.size() - 5), writers.size()));
                    replicas.forEach(r -> log.error("{} printed: {}", r.identity,
                            r.lines.subList(Math.max(0, r.lines.size() - 30), r.lines.size())));
                })
                .block();
    }

    /** Index of the first write by {@code writer} at or after {@code from}, or -1. */
    private int firstWrite(String writer, int from) {
        List<String> seen = List.copyOf(writers);
        for (int i = from; i < seen.size(); i++) {
            if (seen.get(i).equals(writer)) {
                return i;
            }
        }
        return -1;
    }

    /** Pauses the leader, lets the other take over and resumes it; the paused leader's writes after the takeover. */
    private List<Integer> pauseRounds(boolean fenced, int rounds) throws IOException, InterruptedException {
        Replica a = new Replica("a-" + (fenced ? "fenced" : "unfenced"), fenced);
        Replica b = new Replica("b-" + (fenced ? "fenced" : "unfenced"), fenced);
        await("both replicas started", () -> a.count("READY") == 1 && b.count("READY") == 1);
        await("a leader writes", () -> firstWrite(a.identity, 0) >= 0 || firstWrite(b.identity, 0) >= 0);
        List<Integer> late = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            String sentinelWriter = "test-" + (fenced ? "fenced-" : "unfenced-") + round;
            int from = writers.size();
            await("the leader writes again", () -> writers.size() > from + 5);
            Replica leader = writers.get(writers.size() - 1).equals(a.identity) ? a : b;
            Replica successor = leader == a ? b : a;
            long endedBefore = leader.count("ENDED");
            int pausedAt = writers.size();
            leader.signal("STOP");
            await("the successor takes over and writes", () -> firstWrite(successor.identity, pausedAt) >= 0);
            int takeover = firstWrite(successor.identity, pausedAt);
            leader.signal("CONT");
            await("the resumed replica's reconcile ends", () -> leader.count("ENDED") > endedBefore);
            // a write of ours, after which nothing the resumed replica had in flight can still be pending
            maps.patch("target", PatchType.MERGE, "{\"metadata\":{\"annotations\":{\"writer\":\"" + sentinelWriter + "\"}}}")
                    .block(DEADLINE);
            await("the test's write is seen", () -> firstWrite(sentinelWriter, takeover) >= 0);
            int sentinel = firstWrite(sentinelWriter, takeover);
            int lateWrites = (int) writers.subList(takeover, sentinel).stream().filter(leader.identity::equals).count();
            late.add(lateWrites);
            log.info("{} round {}: {} paused after write {}, {} took over at write {}, {} late writes of the paused "
                    + "replica, {} refused by its fence", fenced ? "fenced" : "unfenced", round, leader.identity,
                    pausedAt, successor.identity, takeover, lateWrites, leader.count("FENCED"));
        }
        a.kill();
        b.kill();
        return late;
    }

    /**
     * Two rounds with the fence taken out of each write's context first: what the fence prevents, logged (a
     * race, so measured rather than asserted); then the rounds with the fence, asserted.
     */
    @Test
    void aReplicaPausedMidReconcileAndResumedAfterItsSuccessorTookOverLandsNoWrite() throws Exception {
        List<Integer> unfenced = pauseRounds(false, 2);
        log.info("without the fence, late writes of the resumed replica per round: {}", unfenced);

        List<Integer> fenced = pauseRounds(true, ROUNDS);

        assertThat(fenced).as("writes of a resumed replica after its successor's first write, per round")
                .hasSize(ROUNDS).containsOnly(0);
    }
}
