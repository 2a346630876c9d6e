package io.reactiveinformer.e2e.leader;

import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.client.KubernetesClient;
import io.reactiveinformer.config.ClientConfig;
import io.reactiveinformer.leaderelection.ElectionTimings;
import io.reactiveinformer.test.apiserver.KubeApiServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;

/**
 * A fresh namespace on the real kube-apiserver, with an admin client and a client of the restricted identity,
 * which may use Leases there only while {@link #grantLeases()} holds: {@link #revokeLeases()} makes its
 * updates fail with 403, which cuts a candidate's renewals while it keeps running.
 */
final class LeaseNamespace implements AutoCloseable {

    /** Short timings so that failovers take seconds: lease 3 s, renew deadline 2 s, retry period 0.5 s. */
    static final ElectionTimings FAST = new ElectionTimings(Duration.ofSeconds(3), Duration.ofSeconds(2),
            Duration.ofMillis(500));
    static final Duration DEADLINE = Duration.ofSeconds(60);

    private static final String RESTRICTED_USER = "testenv-restricted";

    final String name;
    final KubernetesClient admin;
    final KubernetesClient restricted;

    LeaseNamespace(KubeApiServer env, String prefix) {
        admin = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "admin"));
        restricted = KubernetesClient.create(ClientConfig.fromKubeconfig(List.of(env.kubeconfig()), "restricted"));
        name = prefix + "-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        admin.resource(V1Namespace.class)
                .create(new V1Namespace().apiVersion("v1").kind("Namespace").metadata(new V1ObjectMeta().name(name)))
                .block(DEADLINE);
        V1Role role = new V1Role().apiVersion("rbac.authorization.k8s.io/v1").kind("Role")
                .metadata(new V1ObjectMeta().name("leases"))
                .rules(List.of(new V1PolicyRule().apiGroups(List.of("coordination.k8s.io")).resources(List.of("leases"))
                        .verbs(List.of("get", "list", "watch", "create", "update", "delete"))));
        admin.resource(V1Role.class).inNamespace(name).create(role).block(DEADLINE);
    }

    /** Grants the restricted identity the Leases of the namespace; idempotent. */
    void grantLeases() {
        V1RoleBinding binding = new V1RoleBinding().apiVersion("rbac.authorization.k8s.io/v1").kind("RoleBinding")
                .metadata(new V1ObjectMeta().name("leases"))
                .roleRef(new V1RoleRef().apiGroup("rbac.authorization.k8s.io").kind("Role").name("leases"))
                .subjects(List.of(new RbacV1Subject().apiGroup("rbac.authorization.k8s.io").kind("User")
                        .name(RESTRICTED_USER)));
        admin.resource(V1RoleBinding.class).inNamespace(name).create(binding)
                .onErrorResume(KubernetesApiException.Conflict.class, e -> Mono.empty())
                .block(DEADLINE);
    }

    void revokeLeases() {
        admin.resource(V1RoleBinding.class).inNamespace(name).delete("leases")
                .onErrorResume(KubernetesApiException.NotFound.class, e -> Mono.empty())
                .block(DEADLINE);
    }

    @Override
    public void close() {
        admin.resource(V1Namespace.class).delete(name).onErrorResume(e -> Mono.empty()).block(DEADLINE);
        admin.close();
        restricted.close();
    }

    /** Milliseconds on a monotonic clock, shared by every replica of a test (they run in this JVM). */
    static long millis() {
        return System.nanoTime() / 1_000_000;
    }

    static String stats(List<Long> millis) {
        List<Long> sorted = millis.stream().sorted().toList();
        long median = sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
        return "n=" + sorted.size() + " median=" + median + " ms max=" + sorted.get(sorted.size() - 1) + " ms min="
                + sorted.get(0) + " ms all=" + millis;
    }
}
