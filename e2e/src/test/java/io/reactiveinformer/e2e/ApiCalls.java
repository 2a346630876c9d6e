package io.reactiveinformer.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.reactiveinformer.test.apiserver.KubeApiServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Raw HTTP calls to the test kube-apiserver as one identity, every wait bounded. */
final class ApiCalls {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI server;
    private final HttpClient http;

    ApiCalls(KubeApiServer env, KubeApiServer.Identity identity) {
        this.server = env.serverUrl();
        this.http = HttpClient.newBuilder()
                .sslContext(identity.sslContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.resolve(path))
                .timeout(TIMEOUT)
                .header("Accept", "application/json");
        if (json == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> call(String method, String path, String json) {
        return await(sendAsync(method, path, json));
    }

    HttpResponse<String> get(String path) {
        return call("GET", path, null);
    }

    /** Creates a namespace of its own for a test (namespaces are never deleted: no controller manager runs). */
    String createNamespace(String prefix) {
        String name = prefix + "-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        HttpResponse<String> created = call("POST", "/api/v1/namespaces",
                "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + name + "\"}}");
        if (created.statusCode() != 201) {
            throw new IllegalStateException("creating namespace " + name + ": " + created.statusCode() + " " + created.body());
        }
        return name;
    }

    static JsonNode json(HttpResponse<String> response) {
        return json(response.body());
    }

    static JsonNode json(String json) {
        return JsonMapper.shared().readTree(json);
    }

    static <T> T await(CompletableFuture<T> future) {
        return await(future, TIMEOUT);
    }

    static <T> T await(CompletableFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + timeout, e);
        }
    }

    /**
     * Completes once {@code check} yields true, checking every 200 ms; completes exceptionally after
     * {@code timeout}. A failed check counts as false.
     */
    static CompletableFuture<Void> eventually(Supplier<CompletableFuture<Boolean>> check, Duration timeout) {
        return eventually(check, System.nanoTime() + timeout.toNanos());
    }

    private static CompletableFuture<Void> eventually(Supplier<CompletableFuture<Boolean>> check, long deadline) {
        return check.get().exceptionally(e -> false).thenCompose(done -> {
            if (done) {
                return CompletableFuture.completedFuture(null);
            }
            if (System.nanoTime() - deadline > 0) {
                return CompletableFuture.failedFuture(new TimeoutException("condition still false at the deadline"));
            }
            return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> eventually(check, deadline));
        });
    }
}
