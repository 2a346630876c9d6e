import com.google.gson.annotations.SerializedName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Generates the protobuf decoders of the built-in kinds at build time (the {@code generate-sources} phase runs
 * it as a single-file program, {@code java -cp <the module's compile classpath> ProtoDecoderGenerator.java
 * PROTO_DIR OUT_DIR REPORT}).
 *
 * <p>Input: the vendored {@code generated.proto} files (the wire schema: messages, field numbers, types) and
 * the Go {@code types.go} beside each (only for what the proto does not say: whether the JSON encoding omits a
 * field's zero value, i.e. a non-pointer field tagged {@code omitempty}; the decoders drop those zero values so
 * that the result equals the JSON decode). Each message is mapped to the official model class of the same
 * version and kind ({@code k8s.io.api.apps.v1.Deployment} to {@code V1Deployment}; {@code CoreV1Event} where
 * the models prefix the group), each field to the model property whose {@code @SerializedName} is the field's
 * JSON name, read through the model's setter, {@code add*Item} or {@code put*Item}: plain calls, no reflection
 * at run time. A message the models have no class for may be mapped to a class of this module
 * ({@link #OWN_MODELS}).
 *
 * <p>Output: one package-private class {@code Proto<Group><Version>} per proto package in
 * {@code io.reactiveinformer.codec}, a {@code read<Message>(ProtoInput, int outerLimit)} method per mapped
 * message (it reads the fields up to the limit in force, then restores {@code outerLimit}), and
 * {@code ProtoDecoders.type(Class)} for each model of a top-level kind or list; REPORT lists the messages and
 * fields left unmapped, and why.
 *
 * <p>With {@code --schema PROTO_DIR OUT_FILE} it writes the parsed schema instead (see {@link #schema}), for the
 * test kit's protobuf encoder, which has no model classes to map to.
 */
public final class ProtoDecoderGenerator {

    static final String MODELS = "io.kubernetes.client.openapi.models.";
    static final String PACKAGE = "io.reactiveinformer.codec";

    /** Messages with a wire form of their own, read by a {@code ProtoInput} method into the model's type. */
    static final Map<String, Special> SPECIALS = Map.of(
            "k8s.io.apimachinery.pkg.apis.meta.v1.Time", new Special("java.time.OffsetDateTime", "in.time()"),
            "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", new Special("java.time.OffsetDateTime", "in.microTime()"),
            "k8s.io.apimachinery.pkg.api.resource.Quantity", new Special("io.kubernetes.client.custom.Quantity", "in.quantity()"),
            "k8s.io.apimachinery.pkg.util.intstr.IntOrString", new Special("io.kubernetes.client.custom.IntOrString", "in.intOrString()"),
            "k8s.io.apimachinery.pkg.runtime.RawExtension", new Special("java.lang.Object", "in.rawExtension()"),
            "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", new Special("java.lang.Object", "in.fieldsV1()"));

    record Special(String javaType, String read) {
    }

    /**
     * Messages the official models have no class for, mapped to a class of this module. It is compiled after
     * this generator runs, so it cannot be introspected: its fields are taken to be message fields of the
     * mapped models, set through a bean setter named after the field's JSON name; the compiler checks those.
     */
    static final Map<String, String> OWN_MODELS = Map.of(
            "k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata", "io.reactiveinformer.api.PartialObjectMetadata");

    record ProtoField(String label, String type, String valueType, String name, int number) {
        boolean repeated() {
            return label.equals("repeated");
        }

        boolean map() {
            return label.equals("map");
        }
    }

    record Message(String pkg, String name, List<ProtoField> fields) {
        String fqn() {
            return pkg + "." + name;
        }
    }

    /**
     * What the Go struct tag says of a field: its JSON name, whether JSON leaves its zero value out, whether it
     * is embedded inline, whether the Go field is a pointer and whether its tag says omitempty, omitzero.
     */
    record GoField(String jsonName, boolean omitsZero, boolean inline, boolean pointer, boolean omitEmpty,
                   boolean omitZero) {
    }

    private static final Pattern PACKAGE_LINE = Pattern.compile("^package ([\\w.]+);");
    private static final Pattern MESSAGE_LINE = Pattern.compile("^message (\\w+) \\{");
    private static final Pattern FIELD_LINE = Pattern.compile("^\\s*(optional|repeated) ([\\w.]+) (\\w+) = (\\d+);");
    private static final Pattern MAP_LINE = Pattern.compile("^\\s*map<(\\w+), ([\\w.]+)> (\\w+) = (\\d+);");
    private static final Pattern GO_STRUCT = Pattern.compile("^type (\\w+) struct \\{");
    private static final Pattern GO_FIELD = Pattern.compile("^\\s*(?:\\w+\\s+)?(\\S+)\\s+`(.*)`");
    private static final Pattern JSON_TAG = Pattern.compile("json:\"([^\"]*)\"");
    private static final Pattern PROTOBUF_TAG = Pattern.compile("protobuf:\"([^\"]*)\"");
    private static final Pattern PROTOBUF_NAME = Pattern.compile("name=(\\w+)");

    private final Map<String, Message> messages = new TreeMap<>();
    /** message fqn, proto field name: the Go tag's facts. */
    private final Map<String, Map<String, GoField>> goFields = new LinkedHashMap<>();
    private final Map<String, Class<?>> models = new TreeMap<>();
    private final List<String> report = new ArrayList<>();
    private final Set<String> inlined = new java.util.HashSet<>();
    /** The methods of inlined messages, appended to the class of the message being generated. */
    private final List<String> pendingMethods = new ArrayList<>();
    private int mappedFields;
    private int skippedFields;

    public static void main(String[] args) throws IOException {
        if (args[0].equals("--schema")) {
            schema(Path.of(args[1]), Path.of(args[2]));
            return;
        }
        Path protoDir = Path.of(args[0]);
        Path outDir = Path.of(args[1]);
        Path reportFile = Path.of(args[2]);
        ProtoDecoderGenerator generator = parse(protoDir);
        generator.mapModels();
        Map<String, String> sources = generator.generate();
        Path packageDir = outDir.resolve(PACKAGE.replace('.', '/'));
        Files.createDirectories(packageDir);
        try (var old = Files.list(packageDir)) {
            old.filter(p -> p.getFileName().toString().startsWith("Proto")).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Files.writeString(packageDir.resolve(source.getKey() + ".java"), source.getValue());
        }
        Files.createDirectories(reportFile.getParent());
        Files.write(reportFile, generator.report);
        System.out.println("protobuf decoders: " + generator.report.get(0));
    }

    static ProtoDecoderGenerator parse(Path protoDir) throws IOException {
        ProtoDecoderGenerator generator = new ProtoDecoderGenerator();
        for (String file : Files.readAllLines(protoDir.resolve("FILES"))) {
            Path path = protoDir.resolve(file);
            if (file.endsWith(".proto")) {
                generator.parseProto(path);
            } else {
                generator.parseGo(path, file);
            }
        }
        return generator;
    }

    /**
     * The {@code --schema PROTO_DIR OUT_FILE} mode, for the test kit's protobuf encoder: the messages and their
     * fields as a tab-separated table. A {@code message} line names a message and says {@code struct} when Go
     * declares it as a struct with tagged fields (else {@code -}: a named slice, or no Go source here); each {@code field} line after it
     * gives number, proto name, JSON name, label ({@code optional}, {@code repeated} or {@code map}), type (a
     * scalar or a message's full name; a map's key type), a map's value type (or {@code -}) and flags:
     * {@code p} the Go field is a pointer, {@code o} its JSON tag says omitempty, {@code z} omitzero, {@code i} it is
     * embedded inline (or {@code -}). Fields are in ascending number order, the order Go writes them in.
     */
    static void schema(Path protoDir, Path outFile) throws IOException {
        ProtoDecoderGenerator generator = parse(protoDir);
        List<String> lines = new ArrayList<>();
        for (Message message : generator.messages.values()) {
            lines.add("message\t" + message.fqn() + "\t"
                    + (generator.goFields.containsKey(message.fqn()) ? "struct" : "-"));
            Map<String, GoField> go = generator.goFields.getOrDefault(message.fqn(), Map.of());
            message.fields().stream().sorted(java.util.Comparator.comparingInt(ProtoField::number)).forEach(f -> {
                GoField g = go.get(f.name());
                String flags = g == null ? "" : (g.pointer() ? "p" : "") + (g.omitEmpty() ? "o" : "")
                        + (g.omitZero() ? "z" : "") + (g.inline() ? "i" : "");
                lines.add("field\t" + f.number() + "\t" + f.name() + "\t" + (g != null ? g.jsonName() : f.name())
                        + "\t" + f.label() + "\t" + f.type() + "\t" + (f.valueType() == null ? "-" : f.valueType())
                        + "\t" + (flags.isEmpty() ? "-" : flags));
            });
        }
        Files.createDirectories(outFile.getParent());
        Files.write(outFile, lines);
        System.out.println("protobuf schema: " + generator.messages.size() + " messages");
    }

    void parseProto(Path path) throws IOException {
        String pkg = null;
        Message current = null;
        for (String line : Files.readAllLines(path)) {
            if (line.trim().startsWith("//")) {
                continue;
            }
            Matcher m;
            if ((m = PACKAGE_LINE.matcher(line)).find()) {
                pkg = m.group(1);
            } else if ((m = MESSAGE_LINE.matcher(line)).find()) {
                current = new Message(pkg, m.group(1), new ArrayList<>());
                messages.put(current.fqn(), current);
            } else if (line.startsWith("}")) {
                current = null;
            } else if (current != null && (m = FIELD_LINE.matcher(line)).find()) {
                current.fields.add(new ProtoField(m.group(1), resolve(pkg, m.group(2)), null, m.group(3),
                        Integer.parseInt(m.group(4))));
            } else if (current != null && (m = MAP_LINE.matcher(line)).find()) {
                current.fields.add(new ProtoField("map", m.group(1), resolve(pkg, m.group(2)), m.group(3),
                        Integer.parseInt(m.group(4))));
            } else if (current != null && !line.isBlank() && !line.contains("reserved")) {
                throw new IllegalStateException(path + ": a line this generator does not read: " + line);
            }
        }
    }

    private static String resolve(String pkg, String type) {
        if (type.startsWith(".")) {
            return type.substring(1);
        }
        return scalar(type) ? type : pkg + "." + type;
    }

    private static boolean scalar(String type) {
        return Set.of("string", "bytes", "bool", "int32", "int64", "double", "float", "uint32", "uint64", "sint32",
                "sint64", "fixed32", "fixed64").contains(type);
    }

    /** The Go package's proto package, from its path: k8s.io/api/apps/v1 is k8s.io.api.apps.v1. */
    void parseGo(Path path, String file) throws IOException {
        String pkg = file.substring(0, file.lastIndexOf('/')).replace('/', '.');
        String struct = null;
        for (String line : Files.readAllLines(path)) {
            Matcher m;
            if ((m = GO_STRUCT.matcher(line)).find()) {
                struct = pkg + "." + m.group(1);
            } else if (line.startsWith("}")) {
                struct = null;
            } else if (struct != null && (m = GO_FIELD.matcher(line)).find()) {
                String goType = m.group(1);
                Matcher json = JSON_TAG.matcher(m.group(2));
                Matcher proto = PROTOBUF_TAG.matcher(m.group(2));
                if (json.find() && proto.find()) {
                    Matcher name = PROTOBUF_NAME.matcher(proto.group(1));
                    // an embedded struct's tag may have no name: go-to-protobuf names the field after the type
                    String protoName = name.find() ? name.group(1)
                            : Character.toLowerCase(goType.charAt(0)) + goType.substring(1);
                    String[] parts = json.group(1).split(",");
                    boolean omit = List.of(parts).contains("omitempty") || List.of(parts).contains("omitzero");
                    // a pointer's zero value is written by both encodings; JSON omits a nil slice or map as
                    // the protobuf encoding does
                    boolean omitsZero = omit && !goType.startsWith("*");
                    goFields.computeIfAbsent(struct, k -> new LinkedHashMap<>())
                            .put(protoName, new GoField(parts[0], omitsZero, List.of(parts).contains("inline"),
                                    goType.startsWith("*"), List.of(parts).contains("omitempty"),
                                    List.of(parts).contains("omitzero")));
                }
            }
        }
    }

    void mapModels() {
        for (Message message : messages.values()) {
            if (SPECIALS.containsKey(message.fqn())) {
                continue;
            }
            Class<?> model = null;
            for (String candidate : candidates(message)) {
                try {
                    model = Class.forName(MODELS + candidate, false, ProtoDecoderGenerator.class.getClassLoader());
                    break;
                } catch (ClassNotFoundException absent) {
                    // the next candidate
                }
            }
            if (model != null) {
                models.put(message.fqn(), model);
            }
        }
    }

    /** {@code CoreV1Event} (the models prefix the group where two groups have a kind) before {@code V1Event}. */
    static List<String> candidates(Message message) {
        String[] parts = message.pkg().split("\\.");
        String version = capitalize(parts[parts.length - 1]);
        String group = capitalize(parts[parts.length - 2]);
        return List.of(group + version + message.name(), version + message.name());
    }

    static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    static String className(String pkg) {
        String[] parts = pkg.split("\\.");
        return "Proto" + capitalize(parts[parts.length - 2]) + capitalize(parts[parts.length - 1]);
    }

    Map<String, String> generate() {
        Map<String, StringBuilder> classes = new TreeMap<>();
        int unmappedMessages = 0;
        List<String> unmapped = new ArrayList<>();
        for (Message message : messages.values()) {
            Class<?> model = models.get(message.fqn());
            if (OWN_MODELS.containsKey(message.fqn())) {
                StringBuilder out = classes.computeIfAbsent(className(message.pkg()), k -> new StringBuilder());
                ownMethod(message, OWN_MODELS.get(message.fqn()), out, unmapped);
                continue;
            }
            if (model == null) {
                if (!SPECIALS.containsKey(message.fqn())) {
                    unmappedMessages++;
                    unmapped.add("message " + message.fqn() + ": no model class (tried " + candidates(message) + ")");
                }
                continue;
            }
            StringBuilder out = classes.computeIfAbsent(className(message.pkg()), k -> new StringBuilder());
            method(message, model, out, unmapped);
            pendingMethods.forEach(out::append);
            pendingMethods.clear();
        }
        int topLevel = 0;
        StringBuilder registry = new StringBuilder();
        for (Map.Entry<String, Class<?>> entry : models.entrySet()) {
            Class<?> model = entry.getValue();
            if (hasTypeMeta(model)) {
                topLevel++;
                register(registry, model.getName(), messages.get(entry.getKey()));
            }
        }
        for (Map.Entry<String, String> own : OWN_MODELS.entrySet()) {
            topLevel++;
            register(registry, own.getValue(), messages.get(own.getKey()));
        }
        Map<String, String> sources = new TreeMap<>();
        for (Map.Entry<String, StringBuilder> c : classes.entrySet()) {
            sources.put(c.getKey(), "package " + PACKAGE + ";\n\n"
                    + "/** Generated by ProtoDecoderGenerator from the vendored .proto files: do not edit. */\n"
                    + "final class " + c.getKey() + " {\n\n    private "
                    + c.getKey() + "() {\n    }\n" + c.getValue() + "}\n");
        }
        sources.put("ProtoDecoders", "package " + PACKAGE + ";\n\n"
                + "/** Generated by ProtoDecoderGenerator from the vendored .proto files: do not edit. */\n"
                + "final class ProtoDecoders {\n\n    private ProtoDecoders() {\n    }\n\n"
                + "    /** How to decode {@code type} from protobuf, null if no generated decoder covers it. */\n"
                + "    static ProtoType<?> type(Class<?> type) {\n        return switch (type.getName()) {\n"
                + registry + "            default -> null;\n        };\n    }\n}\n");
        int mapped = models.size() + OWN_MODELS.size();
        report.add(messages.size() + " messages (" + SPECIALS.size() + " with a wire form of their own), " + mapped
                + " mapped to a model class (" + topLevel + " top-level kinds and lists), " + unmappedMessages
                + " without one; " + mappedFields + " fields mapped, " + skippedFields + " skipped");
        report.addAll(unmapped);
        return sources;
    }

    /** The {@code ProtoDecoders.type} case of a top-level kind or list, read into {@code type}. */
    private static void register(StringBuilder registry, String type, Message message) {
        registry.append("            case \"").append(type).append("\" -> new ProtoType<").append(type).append(">(\"")
                .append(message.name()).append("\", ").append(className(message.pkg())).append("::read")
                .append(message.name()).append(", (o, apiVersion, kind) -> {\n                o.setApiVersion(apiVersion);\n")
                .append("                o.setKind(kind);\n            });\n");
    }

    private static boolean hasTypeMeta(Class<?> model) {
        try {
            model.getMethod("setApiVersion", String.class);
            model.getMethod("setKind", String.class);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    private void method(Message message, Class<?> model, StringBuilder out, List<String> unmapped) {
        String type = model.getName();
        out.append("\n    static ").append(type).append(" read").append(message.name())
                .append("(ProtoInput in, int outerLimit) throws java.io.IOException {\n");
        out.append("        ").append(type).append(" m = new ").append(type).append("();\n");
        nullsOfAbsentLists(message, model, out);
        fields(message, model, out, unmapped);
        out.append("        in.end(outerLimit);\n        return m;\n    }\n");
    }

    /** The {@code read<Message>} method of an {@link #OWN_MODELS} message: its message fields, unknown ones skipped. */
    private void ownMethod(Message message, String type, StringBuilder out, List<String> unmapped) {
        out.append("\n    static ").append(type).append(" read").append(message.name())
                .append("(ProtoInput in, int outerLimit) throws java.io.IOException {\n");
        out.append("        ").append(type).append(" m = new ").append(type).append("();\n");
        out.append("        for (int tag = in.tag(); tag != 0; tag = in.tag()) {\n");
        out.append("            switch (tag) {\n");
        Map<String, GoField> go = goFields.getOrDefault(message.fqn(), Map.of());
        for (ProtoField field : message.fields()) {
            Message inner = messages.get(field.type());
            if (field.repeated() || field.map() || inner == null || !models.containsKey(inner.fqn())) {
                skippedFields++;
                unmapped.add("field " + message.fqn() + "." + field.name() + " -> " + type
                        + ": only a mapped message field is read into a class of this module");
                continue;
            }
            String jsonName = go.containsKey(field.name()) ? go.get(field.name()).jsonName() : field.name();
            out.append("                case ").append(field.number() << 3 | 2).append(" -> m.set")
                    .append(capitalize(jsonName)).append("(").append(className(inner.pkg())).append(".read")
                    .append(inner.name()).append("(in, in.begin()));\n");
            mappedFields++;
        }
        out.append("                default -> in.skip(tag);\n");
        out.append("            }\n        }\n");
        out.append("        in.end(outerLimit);\n        return m;\n    }\n");
    }

    /**
     * Sets to null the lists and maps of {@code m} that the JSON encoding always writes ({@code json} tag without
     * omitempty or omitzero), including those of the messages inlined in it. The models start them empty, but
     * the protobuf encoding writes no entry for an empty one, and the Go object kube-apiserver decodes from the
     * protobuf it stores has nil there, which its JSON says as {@code null}: the JSON decode of that object has
     * null. A list's {@code items} stays empty: the server never serves a list with nil items.
     */
    private void nullsOfAbsentLists(Message message, Class<?> model, StringBuilder out) {
        Map<String, GoField> go = goFields.getOrDefault(message.fqn(), Map.of());
        for (ProtoField field : message.fields()) {
            GoField goField = go.get(field.name());
            if (goField == null) {
                continue;
            }
            if (goField.inline() && messages.containsKey(field.type())) {
                nullsOfAbsentLists(messages.get(field.type()), model, out);
                continue;
            }
            boolean written = !goField.omitEmpty() && !goField.omitZero();
            boolean items = message.name().endsWith("List") && goField.jsonName().equals("items");
            Field property = property(model, goField.jsonName());
            // a repeated field, a map, or a message wrapping a repeated field (metav1's Verbs, nullable: present
            // when empty, so the read sets the empty list)
            if (!written || items || property == null
                    || property.getType() != List.class && property.getType() != Map.class) {
                continue;
            }
            String setter = "set" + capitalize(property.getName().replaceFirst("^_", ""));
            if (has(model, setter, property.getType())) {
                out.append("        m.").append(setter).append("(null);\n");
            }
        }
    }

    /**
     * The loop reading {@code message}'s fields into {@code m}, a {@code model}. A field Go embeds with
     * {@code json:",inline"} is a nested message on the wire, but its fields are the model's own in JSON and in
     * the models: they are read into {@code m} by a method of their own ({@code read<Inner>Into<Model>}).
     */
    private void fields(Message message, Class<?> model, StringBuilder out, List<String> unmapped) {
        out.append("        for (int tag = in.tag(); tag != 0; tag = in.tag()) {\n");
        out.append("            switch (tag) {\n");
        Map<String, GoField> go = goFields.getOrDefault(message.fqn(), Map.of());
        for (ProtoField field : message.fields()) {
            GoField goField = go.get(field.name());
            String problem;
            if (goField != null && goField.inline() && messages.containsKey(field.type())) {
                Message inner = messages.get(field.type());
                String method = "read" + inner.name() + "Into" + model.getSimpleName();
                out.append("                case ").append(field.number() << 3 | 2).append(" -> {\n")
                        .append("                    int limit = in.begin();\n")
                        .append("                    ").append(method).append("(in, m);\n")
                        .append("                    in.end(limit);\n                }\n");
                if (inlined.add(className(message.pkg()) + "." + method)) {
                    StringBuilder body = new StringBuilder();
                    body.append("\n    static void ").append(method).append("(ProtoInput in, ").append(model.getName())
                            .append(" m) throws java.io.IOException {\n");
                    fields(inner, model, body, unmapped);
                    body.append("    }\n");
                    pendingMethods.add(body.toString());
                }
                mappedFields++;
                continue;
            }
            String jsonName = goField != null ? goField.jsonName() : field.name();
            Field property = property(model, jsonName);
            if (property == null) {
                problem = "no property " + jsonName;
            } else {
                problem = field(field, goField != null && goField.omitsZero(), property, model, out);
            }
            if (problem != null) {
                skippedFields++;
                unmapped.add("field " + message.fqn() + "." + field.name() + " -> " + model.getSimpleName() + ": "
                        + problem);
            } else {
                mappedFields++;
            }
        }
        out.append("                default -> in.skip(tag);\n");
        out.append("            }\n        }\n");
    }

    private static Field property(Class<?> model, String jsonName) {
        for (Field f : model.getDeclaredFields()) {
            SerializedName name = f.getAnnotation(SerializedName.class);
            if (name != null && name.value().equals(jsonName)) {
                return f;
            }
        }
        return null;
    }

    /** Appends the cases reading {@code field} into {@code property}; the problem instead, if it cannot. */
    private String field(ProtoField field, boolean omitsZero, Field property, Class<?> model, StringBuilder out) {
        // the models name a property that is a Java keyword _default, and its setter setDefault
        String suffix = capitalize(property.getName().replaceFirst("^_", ""));
        Type javaType = property.getGenericType();
        if (field.map()) {
            if (!(javaType instanceof ParameterizedType p) || p.getRawType() != Map.class
                    || !field.type().equals("string") || p.getActualTypeArguments()[0] != String.class) {
                return "map<" + field.type() + ", ...> into " + javaType.getTypeName();
            }
            Type valueType = p.getActualTypeArguments()[1];
            Value value = value(field.valueType(), valueType);
            if (value == null) {
                return "map value " + field.valueType() + " into " + valueType.getTypeName();
            }
            if (!has(model, "put" + suffix + "Item", String.class, raw(valueType))) {
                return "no put" + suffix + "Item";
            }
            // a map entry is a message of key = 1 and value = 2; both are always written for string keys
            out.append("                case ").append(field.number() << 3 | 2).append(" -> {\n")
                    .append("                    int limit = in.begin();\n")
                    .append("                    String key = \"\";\n")
                    .append("                    ").append(valueType.getTypeName()).append(" value = ")
                    .append(value.empty()).append(";\n")
                    .append("                    for (int t = in.tag(); t != 0; t = in.tag()) {\n")
                    .append("                        switch (t) {\n")
                    .append("                            case 10 -> key = in.string();\n")
                    .append("                            case ").append(2 << 3 | value.wireType()).append(" -> value = ")
                    .append(value.read()).append(";\n")
                    .append("                            default -> in.skip(t);\n")
                    .append("                        }\n                    }\n")
                    .append("                    in.end(limit);\n")
                    .append("                    m.put").append(suffix).append("Item(key, value);\n")
                    .append("                }\n");
            return null;
        }
        if (field.repeated()) {
            if (!(javaType instanceof ParameterizedType p) || p.getRawType() != List.class) {
                return "repeated " + field.type() + " into " + javaType.getTypeName();
            }
            Type elementType = p.getActualTypeArguments()[0];
            Value value = value(field.type(), elementType);
            if (value == null) {
                return "repeated " + field.type() + " into " + javaType.getTypeName();
            }
            if (!has(model, "add" + suffix + "Item", raw(elementType))) {
                return "no add" + suffix + "Item";
            }
            out.append("                case ").append(field.number() << 3 | value.wireType()).append(" -> m.add")
                    .append(suffix).append("Item(").append(value.read()).append(");\n");
            if (value.wireType() == 0) {
                // packed, which proto2 readers accept too
                out.append("                case ").append(field.number() << 3 | 2).append(" -> {\n")
                        .append("                    int limit = in.begin();\n")
                        .append("                    while (!in.atEnd()) {\n")
                        .append("                        m.add").append(suffix).append("Item(").append(value.read())
                        .append(");\n                    }\n                    in.end(limit);\n                }\n");
            }
            return null;
        }
        Value value = value(field.type(), javaType);
        if (value == null) {
            return field.type() + " into " + javaType.getTypeName();
        }
        if (!has(model, "set" + suffix, raw(javaType))) {
            return "no set" + suffix;
        }
        out.append("                case ").append(field.number() << 3 | value.wireType()).append(" -> ");
        if (omitsZero && value.zeroTest() != null) {
            // JSON leaves this zero value out, so the JSON decode never sets it
            // var: the reader's primitive, boxed only when set
            out.append("{\n                    var value = ").append(value.read())
                    .append(";\n                    if (").append(value.zeroTest()).append(") {\n")
                    .append("                        m.set").append(suffix).append("(value);\n")
                    .append("                    }\n                }\n");
        } else {
            out.append("m.set").append(suffix).append("(").append(value.read()).append(");\n");
        }
        return null;
    }

    /**
     * How to read a value of proto type {@code protoType} into Java type {@code javaType}: the expression, its
     * wire type, the test that it is not its type's zero value (scalars only) and the value a map entry
     * without one has.
     */
    record Value(String read, int wireType, String zeroTest, String empty) {
    }

    private Value value(String protoType, Type javaType) {
        String java = javaType.getTypeName();
        switch (protoType) {
            case "string":
                return java.equals("java.lang.String") ? new Value("in.string()", 2, "!value.isEmpty()", "\"\"") : null;
            case "bytes":
                return java.equals("byte[]") ? new Value("in.bytes()", 2, "value.length != 0", "new byte[0]") : null;
            case "bool":
                return java.equals("java.lang.Boolean") ? new Value("in.bool()", 0, "value", "false") : null;
            case "int32":
                return switch (java) {
                    case "java.lang.Integer" -> new Value("in.int32()", 0, "value != 0", "0");
                    case "java.lang.Long" -> new Value("(long) in.int32()", 0, "value != 0", "0L");
                    default -> null;
                };
            case "int64":
                return switch (java) {
                    case "java.lang.Long" -> new Value("in.int64()", 0, "value != 0", "0L");
                    case "java.lang.Integer" -> new Value("(int) in.int64()", 0, "value != 0", "0");
                    default -> null;
                };
            case "double":
                return switch (java) {
                    case "java.lang.Double" -> new Value("in.float64()", 1, "value != 0", "0d");
                    case "java.math.BigDecimal" -> new Value("java.math.BigDecimal.valueOf(in.float64())", 1,
                            "value.signum() != 0", "java.math.BigDecimal.ZERO");
                    default -> null;
                };
            default:
                break;
        }
        Special special = SPECIALS.get(protoType);
        if (special != null) {
            return special.javaType().equals(java) ? new Value(special.read(), 2, null, "null") : null;
        }
        Class<?> model = models.get(protoType);
        Message message = messages.get(protoType);
        if (message != null && message.fields().isEmpty() && java.equals("java.lang.Object")) {
            // an empty Go struct is an Object in the models, {} in JSON: the JSON path makes it an empty map
            return new Value("in.emptyObject()", 2, null, "null");
        }
        if (model != null && model.getName().equals(java)) {
            // a plain static call (arguments evaluate left to right: the length is read, then the fields)
            return new Value(className(message.pkg()) + ".read" + message.name() + "(in, in.begin())", 2,
                    null, "null");
        }
        // a message whose only field is a repeated one (metav1's and core's string lists, authentication's
        // ExtraValue) is a list in the models, as it is in JSON
        if (message != null && message.fields().size() == 1 && message.fields().get(0).repeated()
                && javaType instanceof ParameterizedType p && p.getRawType() == List.class) {
            Value element = value(message.fields().get(0).type(), p.getActualTypeArguments()[0]);
            if (element != null && element.wireType() == 2) {
                return new Value("in.list(" + (message.fields().get(0).number() << 3 | 2) + ", item -> "
                        + element.read().replace("in.", "item.") + ")", 2, null, "null");
            }
        }
        return null;
    }

    private static Class<?> raw(Type type) {
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
    }

    private static boolean has(Class<?> model, String name, Class<?>... parameters) {
        try {
            Method m = model.getMethod(name, parameters);
            return m != null;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
