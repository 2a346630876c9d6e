package io.reactiveinformer.test.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * kube-apiserver's own OpenAPI v3 documents (the Kubernetes version testenv builds) of the built-in
 * group-versions the simulated server serves by default, shipped as gzipped resources by
 * {@code testenv/openapi-docs.sh}: kubectl validates its writes against them. Other group-versions
 * (custom resources, kinds registered later) have none (404).
 *
 * <p>Read once per JVM by {@link #load()}, which {@link SimulatedApiServer} calls on the thread that starts
 * it: reading resources blocks, which the event loop serving requests must not do (BlockHound would stop it).
 */
final class OpenApiDocuments {

    private static final Map<String, Document> DOCUMENTS = read();

    /** A document and the hash its index entry carries (kubectl caches by it, as the real server's). */
    record Document(byte[] json, String hash) {
    }

    private OpenApiDocuments() {
    }

    /** Reads the documents, if this JVM has not yet. */
    static void load() {
        // the class initializer did it
    }

    /** The document of {@code path} ({@code api/v1}, {@code apis/apps/v1}), if shipped. */
    static Optional<Document> of(String path) {
        return Optional.ofNullable(DOCUMENTS.get(path));
    }

    private static Map<String, Document> read() {
        Map<String, Document> documents = new HashMap<>();
        try {
            for (String path : new String(resource("INDEX"), StandardCharsets.UTF_8).split("\n")) {
                if (path.isBlank()) {
                    continue;
                }
                byte[] json;
                try (GZIPInputStream unzipped = new GZIPInputStream(new ByteArrayInputStream(
                        resource(path.replace("/", "__") + "_openapi.json.gz")))) {
                    json = unzipped.readAllBytes();
                }
                documents.put(path, new Document(json, HexFormat.of().withUpperCase().formatHex(
                        MessageDigest.getInstance("SHA-512").digest(json))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return Map.copyOf(documents);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = OpenApiDocuments.class.getResourceAsStream("openapi/v3/" + name)) {
            if (in == null) {
                throw new IllegalStateException("the test kit's jar lacks openapi/v3/" + name);
            }
            return in.readAllBytes();
        }
    }
}
