package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1ShardInfo;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.ListOptions;
import io.reactiveinformer.api.PatchType;
import io.reactiveinformer.api.ResourceType;
import io.reactiveinformer.test.server.Representation.Negotiated;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves one request of the {@link SimulatedApiServer} on its {@link ClusterState}: the non-resource
 * paths first, then a resource path by verb: LIST or WATCH, POST and DELETE of a collection on a
 * collection; GET, PUT, PATCH and DELETE on an object or its {@code status}. Answers the
 * {@link Reply} to write, in JSON or, when the {@code Accept} header asks for it and the kind has a message,
 * in protobuf; or throws the {@link ApiError} the real server would answer with.
 *
 * <p>Threading: stateless beyond the state; runs on the event loop serving the request and never
 * blocks (the state's lock is held for microseconds).
 */
final class RequestRouter {

    private final ClusterState state;
    private final RequestDecoder decoder;
    private final NonResourceEndpoints nonResource;
    private final WatchEndpoint watch;
    private final ProtobufEncoder protobuf;
    private final BooleanSupplier servesProtobuf;

    /**
     * {@code port} is read per request: the server's port, once it listens; {@code servesProtobuf} too:
     * whether protobuf is served.
     */
    RequestRouter(ClusterState state, IntSupplier port, ProtobufEncoder protobuf, BooleanSupplier servesProtobuf) {
        this.state = state;
        this.decoder = new RequestDecoder(state.json().mapper());
        this.nonResource = new NonResourceEndpoints(state, port);
        this.protobuf = protobuf;
        this.servesProtobuf = servesProtobuf;
        this.watch = new WatchEndpoint(state, protobuf);
    }

    /**
     * The reply to a request.
     *
     * @param accept      its {@code Accept} header, or {@code null}
     * @param contentType its {@code Content-Type} header, or {@code null}
     * @param userAgent   its {@code User-Agent} header, or {@code null}
     * @param fault       the request's fault, for those that act on a watch stream's content; or {@code null}
     */
    Reply route(RequestInfo info, String accept, String contentType, String userAgent, byte[] body, Fault fault) {
        Reply other = nonResource.reply(info);
        if (other != null) {
            return other;
        }
        ResourcePath t = ResourcePath.parse(info.path(), state);
        boolean status = "status".equals(t.subresource());
        if (status && !state.hasStatusSubresource(t.type())) {
            throw ApiError.pathNotFound(); // kube-apiserver registers no status path for such a kind
        }
        String method = info.method();
        boolean dryRun = !method.equals("DELETE") && RequestDecoder.dryRun(info.query().get("dryRun"));
        String manager = fieldManager(info.query().get("fieldManager"), userAgent);
        if (t.name() == null) {
            if (method.equals("GET")) {
                return info.isWatch()
                        ? watch.reply(t, info.query(), fault, negotiate(accept, t, false))
                        : list(t, info.query(), negotiate(accept, t, true));
            }
            Negotiated as = negotiate(accept, t, false);
            return switch (method) {
                case "POST" -> {
                    ObjectNode object = decoder.objectBody(body, contentType);
                    List<String> warnings = fieldValidation(info).checkObject(state.kind(t.type()), object,
                            duplicates(body, contentType));
                    yield object(201, as, state.create(t.type(), t.namespace(), object, dryRun, manager))
                            .withWarnings(warnings);
                }
                case "DELETE" -> !ResourceTraits.allowsDeleteCollection(t.type()) ? throwing(methodNotAllowed())
                        : deleteCollection(t, info.query(), decoder.deleteRequest(info.query(), body, contentType), as);
                default -> throw methodNotAllowed();
            };
        }
        Negotiated as = negotiate(accept, t, false);
        return switch (method) {
            case "GET" -> object(200, as, state.get(t.type(), t.namespace(), t.name()));
            case "PUT" -> {
                ObjectNode object = decoder.objectBody(body, contentType);
                List<String> warnings = fieldValidation(info).checkObject(state.kind(t.type()), object,
                        duplicates(body, contentType));
                yield object(200, as, state.replace(t.type(), t.namespace(), t.name(), object, status, dryRun, manager))
                        .withWarnings(warnings);
            }
            case "PATCH" -> {
                PatchType type = RequestDecoder.patchType(contentType);
                if (type == PatchType.STRATEGIC_MERGE && !ResourceTraits.isBuiltIn(t.type())) {
                    throw RequestDecoder.unsupportedMediaType(contentType, "application/json-patch+json, "
                            + "application/merge-patch+json, application/apply-patch+yaml");
                }
                JsonNode patch = type == PatchType.APPLY ? RequestDecoder.yaml(body) : decoder.json(body);
                String applier = info.query().get("fieldManager");
                if (type == PatchType.APPLY && (applier == null || applier.isEmpty())) {
                    throw ApiError.fieldManagerRequired(); // before the body is looked at, as the real server
                }
                List<String> warnings = patchFieldValidation(info, t, type, patch, duplicates(body, contentType));
                yield object(200, as, state.patch(t.type(), t.namespace(), t.name(), type, patch, status, dryRun,
                        type == PatchType.APPLY ? applier : manager, "true".equals(info.query().get("force"))))
                        .withWarnings(warnings);
            }
            case "DELETE" -> {
                RequestDecoder.DeleteRequest request = decoder.deleteRequest(info.query(), body, contentType);
                Deletion deletion = state.delete(t.type(), t.namespace(), t.name(), request.options(),
                        request.dryRun());
                if (deletion.removed() && !ResourceTraits.returnsDeletedObject(t.type())) {
                    V1Status deleted = deletedStatus(t.type(), deletion.object());
                    yield as.protobuf()
                            ? Reply.protobuf(200, protobuf.envelope(state.json().mapper().valueToTree(deleted)))
                            : Reply.of(200, state.json().encode(deleted));
                }
                yield object(200, as, deletion.object());
            }
            default -> throw methodNotAllowed();
        };
    }

    private Negotiated negotiate(String accept, ResourcePath t, boolean list) {
        return Representation.negotiate(accept, list, servesProtobuf.getAsBoolean(),
                protobuf.covers(t.type().apiVersion(), t.type().kind()));
    }

    /**
     * The field manager of a write: the {@code fieldManager} parameter, else what kube-apiserver derives
     * from the User-Agent (its part before the first {@code /}: {@code reactive-informer} for this
     * library's client, {@code kubectl} for kubectl). An apply needs the parameter.
     */
    private static String fieldManager(String parameter, String userAgent) {
        if (parameter != null && !parameter.isEmpty()) {
            return parameter;
        }
        return userAgent == null ? "" : userAgent.split("/", -1)[0];
    }

    /** The fields a JSON body names twice (YAML bodies are not checked). */
    private List<String> duplicates(byte[] body, String contentType) {
        return contentType != null && contentType.contains("yaml") ? List.of()
                : DuplicateFields.of(state.json().mapper(), body);
    }

    private static FieldValidation fieldValidation(RequestInfo info) {
        return FieldValidation.of(info.query().get("fieldValidation"), info.method());
    }

    /** A patch's unknown-field warnings; a refused patch of a missing object is a 404, as on the real server. */
    private List<String> patchFieldValidation(RequestInfo info, ResourcePath t, PatchType type, JsonNode patch,
                                              List<String> duplicates) {
        FieldValidation mode = fieldValidation(info);
        try {
            return mode.checkPatch(state.kind(t.type()), t.name(), type, patch, duplicates);
        } catch (ApiError refused) {
            if (type != PatchType.APPLY) {
                state.get(t.type(), t.namespace(), t.name());
            }
            throw refused;
        }
    }

    /** The {@code Status} a completed DELETE answers with for resources that do not return the object. */
    private static V1Status deletedStatus(ResourceType<?> type, JsonNode object) {
        V1StatusDetails details = new V1StatusDetails().name(object.path("metadata").path("name").asString())
                .kind(type.plural()).uid(object.path("metadata").path("uid").asString());
        if (!type.group().isEmpty()) {
            details.group(type.group());
        }
        return new V1Status().kind("Status").apiVersion("v1").metadata(new V1ListMeta()).status("Success")
                .details(details);
    }

    private Reply deleteCollection(ResourcePath t, Map<String, String> q, RequestDecoder.DeleteRequest request,
                                   Negotiated as) {
        ListOptions selectors = ListOptions.none().withSelectors(q.get("labelSelector"), q.get("fieldSelector"));
        long at = state.resourceVersion();
        List<Deletion> deleted = state.deleteCollection(t.type(), t.namespace(), selectors, request.options(),
                request.dryRun());
        V1ListMeta meta = new V1ListMeta().resourceVersion(Long.toString(at));
        // the real server answers with the items as it listed them, before it deleted each
        return list(t, as, meta, deleted.stream().map(Deletion::listed).toList());
    }

    private Reply object(int code, Negotiated as, ObjectNode object) {
        JsonNode written = as.representation().object(object);
        return as.protobuf() ? Reply.protobuf(code, protobuf.envelope(written))
                : Reply.of(code, state.json().encode(written));
    }

    /** A list of {@code items} in the negotiated representation and encoding. */
    private Reply list(ResourcePath t, Negotiated as, V1ListMeta meta, List<? extends JsonNode> items) {
        boolean metadata = as.representation() == Representation.METADATA;
        String apiVersion = metadata ? Representation.META_API_VERSION : t.type().apiVersion();
        String kind = metadata ? "PartialObjectMetadataList" : t.type().kind() + "List";
        List<JsonNode> written = items.stream()
                .map(item -> metadata ? as.representation().object(item) : state.asListItem(t.type(), (ObjectNode) item))
                .toList();
        if (!as.protobuf()) {
            return Reply.of(200, WireFormat.list(state.json(), apiVersion, kind, meta, written));
        }
        ObjectNode list = state.json().mapper().createObjectNode();
        list.set("metadata", state.json().mapper().valueToTree(meta));
        list.putArray("items").addAll(written);
        return Reply.protobuf(200, protobuf.envelope(apiVersion, kind, list));
    }

    private Reply list(ResourcePath t, Map<String, String> q, Negotiated as) {
        Integer limit = q.containsKey("limit") ? RequestDecoder.parseInt("limit", q.get("limit")) : null;
        ListOptions options = new ListOptions(q.get("labelSelector"), q.get("fieldSelector"), limit,
                q.get("continue"), q.get("resourceVersion"), q.get("resourceVersionMatch"),
                state.shardSelectorParameter(q.get("shardSelector")));
        ListResult page = state.list(t.type(), t.namespace(), options);
        V1ListMeta meta = new V1ListMeta().resourceVersion(page.resourceVersion())._continue(page.continueToken())
                .remainingItemCount(page.remainingItemCount())
                .shardInfo(page.shardSelector() == null ? null : new V1ShardInfo().selector(page.shardSelector()));
        return list(t, as, meta, page.items());
    }

    private static Reply throwing(ApiError error) {
        throw error;
    }

    private static ApiError methodNotAllowed() {
        return new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource",
                null, null);
    }
}
