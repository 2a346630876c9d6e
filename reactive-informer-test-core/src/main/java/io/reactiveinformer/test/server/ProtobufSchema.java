package io.reactiveinformer.test.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The protobuf schema of the built-in kinds: the messages of the {@code .proto} files vendored in
 * reactive-informer ({@code k8s.io/api} and apimachinery), each field with its number, JSON name, type and what
 * its Go struct says (pointer, omitempty, omitzero, inline). Read from {@code protobuf-schema.tsv}, which the
 * build writes with the decoders' generator in its schema mode.
 *
 * <p>Threading: immutable once loaded; {@link #get()} loads it once, on first use.
 */
final class ProtobufSchema {

    static final String META = "k8s.io.apimachinery.pkg.apis.meta.v1.";
    static final String TIME = META + "Time";
    static final String MICRO_TIME = META + "MicroTime";
    static final String FIELDS_V1 = META + "FieldsV1";
    static final String QUANTITY = "k8s.io.apimachinery.pkg.api.resource.Quantity";
    static final String INT_OR_STRING = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
    static final String RAW_EXTENSION = "k8s.io.apimachinery.pkg.runtime.RawExtension";

    enum Label {
        OPTIONAL, REPEATED, MAP
    }

    /**
     * One field.
     *
     * @param type      a scalar type ({@code string}, {@code int64}...) or a message's full name; a map's key type
     * @param valueType a map's value type, else null
     * @param pointer   the Go field is a pointer: Go writes it only when set
     * @param omitEmpty its JSON tag says omitempty
     * @param omitZero  its JSON tag says omitzero
     * @param inline    Go embeds it inline: its fields are the enclosing object's in JSON
     */
    record Field(int number, String name, String json, Label label, String type, String valueType, boolean pointer,
                 boolean omitEmpty, boolean omitZero, boolean inline) {

        boolean scalar() {
            return !type.contains(".");
        }
    }

    /**
     * A message, its fields in ascending number order (the order Go writes them in).
     *
     * @param goStruct Go declares it as a struct
     */
    record Message(String name, boolean goStruct, List<Field> fields) {

        /**
         * Whether this message is a Go named slice in disguise (metav1's {@code Verbs}, authentication's
         * {@code ExtraValue}): no struct, one repeated field; a JSON array.
         */
        boolean listLike() {
            return !goStruct && fields.size() == 1 && fields.get(0).label() == Label.REPEATED;
        }
    }

    private static final class Holder {
        static final ProtobufSchema SCHEMA = load();
    }

    private final Map<String, Message> messages;

    private ProtobufSchema(Map<String, Message> messages) {
        this.messages = messages;
    }

    static ProtobufSchema get() {
        return Holder.SCHEMA;
    }

    /** The message of this full name ({@code k8s.io.api.core.v1.Pod}), or null. */
    Message message(String name) {
        return messages.get(name);
    }

    int size() {
        return messages.size();
    }

    /**
     * The message of a built-in kind, or null: {@code apps/v1} and {@code Deployment} are
     * {@code k8s.io.api.apps.v1.Deployment}, {@code v1} is core, {@code meta.k8s.io/v1} apimachinery's meta;
     * a group is named after its first label (its proto package is), {@code internal.apiserver.k8s.io} excepted.
     * {@code Status} is meta's in every group version, as kube-apiserver registers it.
     */
    Message kind(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        String version = apiVersion.substring(slash + 1);
        String pkg;
        if (group.equals("meta.k8s.io")) {
            return messages.get(META + kind);
        } else if (group.isEmpty()) {
            pkg = "core";
        } else if (group.equals("internal.apiserver.k8s.io")) {
            pkg = "apiserverinternal";
        } else {
            int dot = group.indexOf('.');
            pkg = dot < 0 ? group : group.substring(0, dot);
        }
        Message message = messages.get("k8s.io.api." + pkg + "." + version + "." + kind);
        return message == null && kind.equals("Status") ? messages.get(META + kind) : message;
    }

    private static ProtobufSchema load() {
        Map<String, Message> messages = new HashMap<>();
        try (InputStream in = ProtobufSchema.class.getResourceAsStream("protobuf-schema.tsv")) {
            if (in == null) {
                throw new IllegalStateException("protobuf-schema.tsv is missing: the build generates it");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String name = null;
            boolean goStruct = false;
            List<Field> fields = null;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                String[] parts = line.split("\t", -1);
                if (parts[0].equals("message")) {
                    if (name != null) {
                        messages.put(name, new Message(name, goStruct, List.copyOf(fields)));
                    }
                    name = parts[1];
                    goStruct = parts[2].equals("struct");
                    fields = new ArrayList<>();
                } else {
                    String flags = parts[7];
                    fields.add(new Field(Integer.parseInt(parts[1]), parts[2], parts[3],
                            Label.valueOf(parts[4].toUpperCase(java.util.Locale.ROOT)), parts[5],
                            parts[6].equals("-") ? null : parts[6], flags.contains("p"), flags.contains("o"),
                            flags.contains("z"), flags.contains("i")));
                }
            }
            if (name != null) {
                messages.put(name, new Message(name, goStruct, List.copyOf(fields)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ProtobufSchema(Map.copyOf(messages));
    }
}
