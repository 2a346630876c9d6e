package io.reactiveinformer.client;

import io.reactiveinformer.api.KubernetesApiException;
import java.nio.charset.StandardCharsets;

/**
 * The successful (2xx) answer to a {@link RawRequest}; other codes fail the request with a
 * {@link KubernetesApiException}.
 *
 * @param code        the HTTP status code
 * @param contentType the {@code Content-Type} header, or {@code null}
 * @param body        the whole body
 */
public record RawResponse(int code, String contentType, byte[] body) {

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
