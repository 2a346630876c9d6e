package io.reactiveinformer.benchmarks.sidebyside;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.BufferedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The bytes every contender is served: a pod LIST of {@code n} pods and a WATCH stream of {@code m}
 * events (about 90% MODIFIED, 4% ADDED, 4% DELETED and a BOOKMARK every 100 events), generated
 * deterministically from a seed and written once to a directory ({@code list.json}, {@code watch.jsonl},
 * one event a line, and {@code corpus.properties}). The same seed gives the same bytes, so every
 * contender and every run decodes exactly the same input.
 *
 * <p>Pods are variations of a realistic template (labels, annotations, owner reference, managedFields,
 * two or three containers, status): about 5 KB of JSON each.
 */
public final class Corpus {

    static final String LIST = "list.json";
    static final String WATCH = "watch.jsonl";
    static final String PROPERTIES = "corpus.properties";
    private static final int NAMESPACES = 40;

    private final JsonMapper mapper = JsonMapper.builder().build();
    private final ObjectNode template;
    private final Random random;
    private long resourceVersion = 1000;

    private Corpus(long seed) throws IOException {
        try (InputStream in = Corpus.class.getResourceAsStream("/io/reactiveinformer/benchmarks/codec/pod.json")) {
            template = (ObjectNode) mapper.readTree(in.readAllBytes());
        }
        random = new Random(seed);
    }

    /** Writes the corpus into {@code dir} unless a corpus of the same shape and seed is already there. */
    public static Properties ensure(Path dir, int n, int m, long seed) throws IOException {
        Path props = dir.resolve(PROPERTIES);
        if (Files.exists(props)) {
            Properties existing = load(dir);
            if (existing.getProperty("n").equals(Integer.toString(n)) && existing.getProperty("m").equals(Integer.toString(m))
                    && existing.getProperty("seed").equals(Long.toString(seed))) {
                return existing;
            }
        }
        Files.createDirectories(dir);
        return new Corpus(seed).write(dir, n, m, seed);
    }

    static Properties load(Path dir) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(dir.resolve(PROPERTIES))) {
            p.load(in);
        }
        return p;
    }

    private Properties write(Path dir, int n, int m, long seed) throws IOException {
        List<ObjectNode> live = new ArrayList<>(n + m / 10);
        for (int i = 0; i < n; i++) {
            live.add(newPod());
        }
        String listRv = Long.toString(++resourceVersion);
        long listBytes;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve(LIST)), 1 << 16)) {
            out.write(("{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" + listRv
                    + "\"},\"items\":[").getBytes(StandardCharsets.UTF_8));
            for (int i = 0; i < live.size(); i++) {
                if (i > 0) {
                    out.write(',');
                }
                out.write(mapper.writeValueAsBytes(live.get(i)));
            }
            out.write("]}".getBytes(StandardCharsets.UTF_8));
        }
        listBytes = Files.size(dir.resolve(LIST));
        int notifications = 0;
        int[] counts = new int[4];
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(dir.resolve(WATCH)), 1 << 16)) {
            for (int i = 0; i < m; i++) {
                String type;
                ObjectNode object;
                if (i % 100 == 99) {
                    type = "BOOKMARK";
                    object = mapper.createObjectNode();
                    object.put("kind", "Pod").put("apiVersion", "v1");
                    object.putObject("metadata").put("resourceVersion", Long.toString(resourceVersion));
                    counts[3]++;
                } else {
                    int dice = random.nextInt(100);
                    if (dice < 4 || live.size() < 2) {
                        type = "ADDED";
                        object = newPod();
                        live.add(object);
                        counts[0]++;
                    } else if (dice < 8) {
                        type = "DELETED";
                        int victim = random.nextInt(live.size());
                        object = live.get(victim);
                        live.set(victim, live.get(live.size() - 1));
                        live.remove(live.size() - 1);
                        meta(object).put("resourceVersion", Long.toString(++resourceVersion));
                        counts[2]++;
                    } else {
                        type = "MODIFIED";
                        object = live.get(random.nextInt(live.size()));
                        modify(object);
                        counts[1]++;
                    }
                    notifications++;
                }
                ObjectNode event = mapper.createObjectNode();
                event.put("type", type);
                event.set("object", object);
                out.write(mapper.writeValueAsBytes(event));
                out.write('\n');
            }
        }
        Properties p = new Properties();
        p.setProperty("n", Integer.toString(n));
        p.setProperty("m", Integer.toString(m));
        p.setProperty("seed", Long.toString(seed));
        p.setProperty("listResourceVersion", listRv);
        p.setProperty("finalResourceVersion", Long.toString(resourceVersion));
        p.setProperty("notifications", Integer.toString(notifications));
        p.setProperty("added", Integer.toString(counts[0]));
        p.setProperty("modified", Integer.toString(counts[1]));
        p.setProperty("deleted", Integer.toString(counts[2]));
        p.setProperty("bookmarks", Integer.toString(counts[3]));
        p.setProperty("finalObjects", Integer.toString(live.size()));
        p.setProperty("listBytes", Long.toString(listBytes));
        p.setProperty("watchBytes", Long.toString(Files.size(dir.resolve(WATCH))));
        try (OutputStream out = Files.newOutputStream(dir.resolve(PROPERTIES))) {
            p.store(out, "side-by-side corpus");
        }
        return p;
    }

    private static ObjectNode meta(ObjectNode pod) {
        return (ObjectNode) pod.get("metadata");
    }

    private ObjectNode newPod() {
        ObjectNode pod = template.deepCopy();
        ObjectNode meta = meta(pod);
        String app = "app" + random.nextInt(500);
        String hash = Long.toHexString(random.nextLong() & 0xffffffffffL);
        String name = app + "-" + hash + "-" + Integer.toString(random.nextInt(60_466_176) + 60_466_176, 36);
        meta.put("name", name);
        meta.put("generateName", app + "-" + hash + "-");
        meta.put("namespace", "ns-" + random.nextInt(NAMESPACES));
        meta.put("uid", new UUID(random.nextLong(), random.nextLong()).toString());
        meta.put("resourceVersion", Long.toString(++resourceVersion));
        ObjectNode labels = (ObjectNode) meta.get("labels");
        labels.put("app.kubernetes.io/name", app);
        labels.put("pod-template-hash", hash);
        labels.put("tier", random.nextBoolean() ? "frontend" : "backend");
        ObjectNode spec = (ObjectNode) pod.get("spec");
        ArrayNode containers = (ArrayNode) spec.get("containers");
        if (random.nextInt(3) == 0) {
            ObjectNode third = ((ObjectNode) containers.get(0)).deepCopy();
            third.put("name", "log-shipper");
            third.put("image", "registry.example.com/log-shipper:1." + random.nextInt(20));
            containers.add(third);
        }
        ((ObjectNode) containers.get(0)).put("image", "registry.example.com/" + app + ":" + random.nextInt(1000));
        ObjectNode status = (ObjectNode) pod.get("status");
        status.put("podIP", "10.1." + random.nextInt(256) + "." + random.nextInt(256));
        return pod;
    }

    private void modify(ObjectNode pod) {
        ObjectNode meta = meta(pod);
        meta.put("resourceVersion", Long.toString(++resourceVersion));
        ((ObjectNode) meta.get("annotations")).put("bench/generation", Integer.toString(random.nextInt(1_000_000)));
        ObjectNode status = (ObjectNode) pod.get("status");
        status.put("podIP", "10.1." + random.nextInt(256) + "." + random.nextInt(256));
    }

    /** {@code Corpus DIR N M [SEED]}: writes the corpus (or keeps an identical one) and prints its properties. */
    public static void main(String[] args) throws IOException {
        Properties p = ensure(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                args.length > 3 ? Long.parseLong(args[3]) : 42L);
        p.list(System.out);
    }
}
