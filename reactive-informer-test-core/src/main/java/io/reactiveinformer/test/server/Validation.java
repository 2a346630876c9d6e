package io.reactiveinformer.test.server;

import io.kubernetes.client.openapi.models.V1StatusCause;
import io.kubernetes.client.openapi.models.V1StatusDetails;
import io.reactiveinformer.api.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The checks of the real server's decoding and validation that controllers run into: the kind and
 * apiVersion of a body against its endpoint, object names (RFC 1123 subdomains, labels for
 * namespaces, RFC 1035 labels for services), conditional updates of custom resources, immutable
 * ConfigMaps and Secrets, and finalizers added to an object being deleted. Messages are the real server's.
 */
final class Validation {

    private static final String SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
    private static final String LABEL_1123 = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
    private static final String LABEL_1035 = "[a-z]([-a-z0-9]*[a-z0-9])?";
    private static final String IMMUTABLE = "Forbidden: field is immutable when `immutable` is set";
    private static final String NO_NEW_FINALIZERS =
            "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ";

    private Validation() {
    }

    /** A POST or PUT body must be of the endpoint's kind and apiVersion (or leave them out). */
    static void checkKind(ResourceType<?> type, JsonNode body) {
        String kind = body.path("kind").asString("");
        String apiVersion = body.path("apiVersion").asString("");
        if (kind.isEmpty() && apiVersion.isEmpty()) {
            return;
        }
        if (!kind.isEmpty() && !kind.equals(type.kind())) {
            throw ApiError.badRequest(kind + " in version \"" + apiVersion + "\" cannot be handled as a " + type.kind()
                    + ": converting (" + apiVersion + "." + kind + ") to " + type.kind() + ": unknown conversion");
        }
        if (!apiVersion.isEmpty() && !apiVersion.equals(type.apiVersion())) {
            throw ApiError.badRequest((kind.isEmpty() ? type.kind() : kind) + " in version \"" + type.apiVersion()
                    + "\" cannot be handled as a " + type.kind() + ": no kind \"" + type.kind()
                    + "\" is registered for version \"" + apiVersion + "\"");
        }
    }

    /** 422 unless {@code name} is valid for {@code type}. */
    static void checkName(ResourceType<?> type, String name) {
        String problem;
        if (type.group().isEmpty() && type.plural().equals("namespaces")) {
            problem = check(name, LABEL_1123, 63, "a lowercase RFC 1123 label must consist of lower case alphanumeric "
                    + "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
                    + "'123-abc', regex used for validation is '" + LABEL_1123 + "')");
        } else if (type.group().isEmpty() && type.plural().equals("services")) {
            problem = check(name, LABEL_1035, 63, "a DNS-1035 label must consist of lower case alphanumeric characters "
                    + "or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. "
                    + "'my-name',  or 'abc-123', regex used for validation is '" + LABEL_1035 + "')");
        } else {
            problem = check(name, SUBDOMAIN, 253, "a lowercase RFC 1123 subdomain must consist of lower case "
                    + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                    + "(e.g. 'example.com', regex used for validation is '" + SUBDOMAIN + "')");
        }
        if (problem != null) {
            throw ApiError.invalid(type, name, List.of(ApiError.cause("FieldValueInvalid", "metadata.name",
                    "Invalid value: \"" + name + "\": " + problem)));
        }
    }

    /**
     * 422 for a PUT of a custom resource without {@code metadata.resourceVersion}: unlike most built-in
     * kinds, custom resources do not allow unconditional updates.
     */
    static void checkConditionalUpdate(ResourceType<?> type, String name, JsonNode metadata) {
        if (!ResourceTraits.isBuiltIn(type) && metadata.path("resourceVersion").asString("").isEmpty()) {
            throw new ApiError(422, "Invalid", type.plural() + "." + type.group() + " \"" + name + "\" is invalid: "
                    + "metadata.resourceVersion: Invalid value: 0: must be specified for an update",
                    new V1StatusDetails().name(name).group(type.group()).kind(type.plural()).addCausesItem(
                            new V1StatusCause().reason("FieldValueInvalid").field("metadata.resourceVersion")
                                    .message("Invalid value: 0: must be specified for an update")), null);
        }
    }

    /** 422 when an update changes what an immutable ConfigMap or Secret fixes. */
    static void checkImmutable(ResourceType<?> type, ObjectNode old, ObjectNode next) {
        boolean configMap = type.group().isEmpty() && type.plural().equals("configmaps");
        boolean secret = type.group().isEmpty() && type.plural().equals("secrets");
        if ((!configMap && !secret) || !old.path("immutable").asBoolean(false)) {
            return;
        }
        List<V1StatusCause> causes = new ArrayList<>();
        if (!next.path("immutable").asBoolean(false)) {
            causes.add(ApiError.cause("FieldValueForbidden", "immutable", IMMUTABLE));
        }
        for (String field : configMap ? List.of("data", "binaryData") : List.of("data")) {
            if (!old.path(field).equals(next.path(field))) {
                causes.add(ApiError.cause("FieldValueForbidden", field, IMMUTABLE));
            }
        }
        if (!causes.isEmpty()) {
            throw ApiError.invalid(type, old.path("metadata").path("name").asString(), causes);
        }
    }

    /**
     * 422 when an update adds a finalizer to an object that is being deleted (its {@code deletionTimestamp} is
     * set): removing some is how deletion proceeds, adding one would hold it up for ever. The new ones are
     * listed sorted; kube-apiserver validates an update's metadata twice and lists the same cause twice.
     */
    static void checkNoNewFinalizers(ResourceType<?> type, ObjectNode old, ObjectNode next) {
        JsonNode oldMeta = old.path("metadata");
        if (oldMeta.path("deletionTimestamp").isMissingNode() || oldMeta.path("deletionTimestamp").isNull()) {
            return;
        }
        Set<String> added = new TreeSet<>();
        next.path("metadata").path("finalizers").forEach(f -> added.add(f.asString()));
        oldMeta.path("finalizers").forEach(f -> added.remove(f.asString()));
        if (added.isEmpty()) {
            return;
        }
        String name = oldMeta.path("name").asString();
        String message = NO_NEW_FINALIZERS + GoFormat.stringSlice(added);
        V1StatusCause cause = new V1StatusCause().reason("FieldValueForbidden").field("metadata.finalizers").message(message);
        V1StatusDetails details = new V1StatusDetails().name(name).kind(type.kind()).addCausesItem(cause).addCausesItem(cause);
        if (!type.group().isEmpty()) {
            details.group(type.group());
        }
        throw new ApiError(422, "Invalid", type.kind() + " \"" + name + "\" is invalid: metadata.finalizers: " + message,
                details, null);
    }

    private static String check(String name, String regex, int max, String message) {
        if (name.length() > max) {
            return "must be no more than " + max + " characters";
        }
        if (!regex.equals(SUBDOMAIN) && name.contains(".")) {
            return "must not contain dots";
        }
        return Pattern.matches(regex, name) ? null : message;
    }
}
