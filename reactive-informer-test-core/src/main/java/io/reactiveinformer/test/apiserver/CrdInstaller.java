package io.reactiveinformer.test.apiserver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Creates a CustomResourceDefinition and waits until it can be used: the CRD's {@code Established} condition
 * is not enough on its own, as the resource's endpoint can still answer 404 for a moment after it.
 */
final class CrdInstaller {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final long POLL_INTERVAL_MILLIS = 100;
    private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

    private final URI server;
    private final HttpClient http;

    CrdInstaller(URI server, KubeApiServer.Identity identity) {
        this.server = server;
        this.http = HttpClient.newBuilder()
                .sslContext(identity.sslContext())
                .connectTimeout(REQUEST_TIMEOUT)
                .build();
    }

    KubeApiServer.InstalledCrd install(Path yaml) {
        JsonNode crd;
        try {
            crd = YAMLMapper.shared().readTree(yaml.toFile());
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot read a CustomResourceDefinition from " + yaml, e);
        }
        KubeApiServer.InstalledCrd installed = describe(crd, yaml);
        HttpRequest create;
        try {
            create = request(CRDS).header("Content-Type", "application/yaml")
                    .POST(HttpRequest.BodyPublishers.ofFile(yaml)).build();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        HttpResponse<String> created = await(http.sendAsync(create, HttpResponse.BodyHandlers.ofString()),
                REQUEST_TIMEOUT, "create " + installed.name());
        if (created.statusCode() != 201 && created.statusCode() != 409) {
            throw new IllegalStateException("creating " + installed.name() + " answered " + created.statusCode()
                    + ": " + created.body());
        }
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        await(poll(() -> get(CRDS + "/" + installed.name()).thenApply(r -> r.statusCode() == 200
                        && established(JsonMapper.shared().readTree(r.body()))), deadline)
                        .thenCompose(ignored -> poll(() -> get(installed.collectionPath("default") + "?limit=1")
                                .thenApply(r -> r.statusCode() == 200), deadline)),
                READY_TIMEOUT.plusSeconds(5), installed.name() + " to be established and served");
        return installed;
    }

    private static KubeApiServer.InstalledCrd describe(JsonNode crd, Path source) {
        JsonNode spec = crd.path("spec");
        String storageVersion = null;
        for (JsonNode version : spec.path("versions")) {
            if (version.path("storage").asBoolean(false)) {
                storageVersion = version.path("name").asString();
            }
        }
        String name = crd.path("metadata").path("name").asString("");
        if (!"CustomResourceDefinition".equals(crd.path("kind").asString("")) || name.isEmpty()
                || storageVersion == null) {
            throw new IllegalArgumentException(source + " is not a CustomResourceDefinition with a name"
                    + " and a storage version");
        }
        return new KubeApiServer.InstalledCrd(name, spec.path("group").asString(), storageVersion,
                spec.path("names").path("plural").asString(), "Namespaced".equals(spec.path("scope").asString()));
    }

    private static boolean established(JsonNode crd) {
        for (JsonNode condition : crd.path("status").path("conditions")) {
            if ("Established".equals(condition.path("type").asString(""))
                    && "True".equals(condition.path("status").asString(""))) {
                return true;
            }
        }
        return false;
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(server.resolve(path)).timeout(REQUEST_TIMEOUT);
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return http.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Completes when {@code check} yields true, re-checking every 100 ms; fails once past {@code deadline}. */
    private static CompletableFuture<Void> poll(Supplier<CompletableFuture<Boolean>> check, long deadline) {
        return check.get().exceptionally(e -> false).thenCompose(done -> {
            if (done) {
                return CompletableFuture.completedFuture(null);
            }
            if (System.nanoTime() - deadline > 0) {
                return CompletableFuture.failedFuture(new TimeoutException("condition not met in time"));
            }
            return CompletableFuture.runAsync(() -> { },
                            CompletableFuture.delayedExecutor(POLL_INTERVAL_MILLIS, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> poll(check, deadline));
        });
    }

    private static <T> T await(CompletableFuture<T> future, Duration timeout, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        }
        catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("gave up waiting for " + what, e instanceof ExecutionException ? e.getCause() : e);
        }
    }
}
