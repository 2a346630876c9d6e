package io.reactiveinformer.test.server;

import io.reactiveinformer.api.ResourceType;
import java.util.List;
import java.util.function.IntSupplier;
import tools.jackson.databind.node.ObjectNode;

/**
 * The paths of the {@link SimulatedApiServer} that name no resource: discovery ({@code /api},
 * {@code /apis} and their group versions), {@code /version}, the health checks and the OpenAPI v3
 * documents, built by {@link Discovery} and {@link OpenApiDocuments} from what the state serves now.
 *
 * <p>Threading: stateless beyond the state; runs on the event loop serving the request.
 */
final class NonResourceEndpoints {

    private final ClusterState state;
    private final IntSupplier port;

    /** {@code port} is read per request: the server's port, once it listens. */
    NonResourceEndpoints(ClusterState state, IntSupplier port) {
        this.state = state;
        this.port = port;
    }

    /** The reply to a GET of a non-resource path; {@code null} for the others (and for other methods). */
    Reply reply(RequestInfo info) {
        String path = info.path().endsWith("/") && info.path().length() > 1
                ? info.path().substring(0, info.path().length() - 1) : info.path();
        if (!info.method().equals("GET")) {
            return null;
        }
        List<ResourceType<?>> resources = state.resources();
        if (path.startsWith("/openapi/v3/")) {
            return OpenApiDocuments.of(path.substring("/openapi/v3/".length()))
                    .map(document -> Reply.of(200, document.json()))
                    .orElseThrow(ApiError::pathNotFound);
        }
        ObjectNode doc = switch (path) {
            case "/version" -> Discovery.version();
            case "/api" -> Discovery.coreVersions(resources, "127.0.0.1:" + port.getAsInt());
            case "/apis" -> Discovery.groupList(resources);
            case "/openapi/v3" -> Discovery.openApiIndex(resources);
            case "/healthz", "/livez", "/readyz" -> null;
            default -> {
                String[] seg = path.split("/");
                if (seg.length == 3 && seg[1].equals("api")) {
                    yield orNotFound(Discovery.resourceList(resources, "", seg[2], state::hasStatusSubresource));
                }
                if (seg.length == 3 && seg[1].equals("apis")) {
                    yield orNotFound(Discovery.group(resources, seg[2]));
                }
                if (seg.length == 4 && seg[1].equals("apis")) {
                    yield orNotFound(Discovery.resourceList(resources, seg[2], seg[3], state::hasStatusSubresource));
                }
                yield null;
            }
        };
        if (doc == null) {
            return switch (path) {
                case "/healthz", "/livez", "/readyz" -> Reply.text("ok");
                default -> null;
            };
        }
        return Reply.of(200, state.json().encode(doc));
    }

    private static ObjectNode orNotFound(ObjectNode doc) {
        if (doc == null) {
            throw ApiError.pathNotFound();
        }
        return doc;
    }
}
