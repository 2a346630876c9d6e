package io.reactiveinformer.config;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.scheduler.Scheduler;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads kubeconfig files as kubectl does: several files merge with the first definition of each
 * cluster, user and context name (and of {@code current-context}) winning; relative paths resolve
 * against the directory of the file that holds them.
 */
final class Kubeconfig {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /** One named entry and the directory its relative paths resolve against. */
    private record Entry(JsonNode body, Path dir) {
    }

    private final Map<String, Entry> clusters = new LinkedHashMap<>();
    private final Map<String, Entry> users = new LinkedHashMap<>();
    private final Map<String, Entry> contexts = new LinkedHashMap<>();
    private String currentContext;

    private Kubeconfig() {
    }

    /** {@code $KUBECONFIG}'s existing files, else {@code ~/.kube/config} if it exists, else none. */
    static List<Path> defaultFiles(Map<String, String> env, Path home) {
        String variable = env.get("KUBECONFIG");
        List<Path> files = new ArrayList<>();
        if (variable != null && !variable.isEmpty()) {
            for (String part : variable.split(File.pathSeparator)) {
                if (!part.isEmpty() && Files.isRegularFile(Path.of(part))) {
                    files.add(Path.of(part));
                }
            }
            return files;
        }
        Path standard = home.resolve(".kube").resolve("config");
        if (Files.isRegularFile(standard)) {
            files.add(standard);
        }
        return files;
    }

    static ClientConfig load(List<Path> files, String context, Scheduler scheduler) {
        if (files.isEmpty()) {
            throw new ConfigException("no kubeconfig file found");
        }
        Kubeconfig merged = new Kubeconfig();
        for (Path file : files) {
            merged.merge(file);
        }
        return merged.resolve(context, scheduler);
    }

    private void merge(Path file) {
        JsonNode root;
        try {
            root = YAML.readTree(Files.readAllBytes(file));
        } catch (IOException | JacksonException e) {
            throw new ConfigException("cannot read kubeconfig " + file + ": " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        mergeNamed(root.path("clusters"), "cluster", dir, clusters);
        mergeNamed(root.path("users"), "user", dir, users);
        mergeNamed(root.path("contexts"), "context", dir, contexts);
        String current = root.path("current-context").asString("");
        if (currentContext == null && !current.isEmpty()) {
            currentContext = current;
        }
    }

    private static void mergeNamed(JsonNode list, String field, Path dir, Map<String, Entry> into) {
        for (JsonNode item : list) {
            String name = item.path("name").asString("");
            if (!name.isEmpty()) {
                into.putIfAbsent(name, new Entry(item.path(field), dir));
            }
        }
    }

    private ClientConfig resolve(String requested, Scheduler scheduler) {
        String name = requested != null ? requested : currentContext;
        if (name == null) {
            throw new ConfigException("the kubeconfig has no current-context and none was given");
        }
        Entry context = contexts.get(name);
        if (context == null) {
            throw new ConfigException("context \"" + name + "\" is not in the kubeconfig (known: " + contexts.keySet() + ")");
        }
        String clusterName = context.body().path("cluster").asString("");
        Entry cluster = clusters.get(clusterName);
        if (cluster == null) {
            throw new ConfigException("context \"" + name + "\" names cluster \"" + clusterName + "\", which is not defined");
        }
        String server = cluster.body().path("server").asString("");
        if (server.isEmpty()) {
            throw new ConfigException("cluster \"" + clusterName + "\" has no server");
        }
        ClientConfig config = ClientConfig.forServer(URI.create(server)).withScheduler(scheduler);

        String namespace = context.body().path("namespace").asString("");
        if (!namespace.isEmpty()) {
            config = config.withContextNamespace(namespace);
        }
        byte[] ca = fileOrData(cluster, "certificate-authority", "certificate-authority-data");
        if (ca != null) {
            config = config.withCaCertificates(Pem.certificates(ca, "certificate authority of cluster \"" + clusterName + "\""));
        }
        if (cluster.body().path("insecure-skip-tls-verify").asBoolean(false)) {
            config = config.withInsecureSkipTlsVerify(true);
        }

        String userName = context.body().path("user").asString("");
        Entry user = users.get(userName);
        if (user == null) {
            if (!userName.isEmpty()) {
                throw new ConfigException("context \"" + name + "\" names user \"" + userName + "\", which is not defined");
            }
            return config;
        }
        return withUser(config, userName, user, scheduler);
    }

    private static ClientConfig withUser(ClientConfig config, String userName, Entry user, Scheduler scheduler) {
        JsonNode body = user.body();
        byte[] cert = fileOrData(user, "client-certificate", "client-certificate-data");
        byte[] key = fileOrData(user, "client-key", "client-key-data");
        if ((cert == null) != (key == null)) {
            throw new ConfigException("user \"" + userName + "\" needs both a client certificate and a client key");
        }
        if (cert != null) {
            List<X509Certificate> chain = Pem.certificates(cert, "client certificate of user \"" + userName + "\"");
            config = config.withClientCertificate(chain, Pem.privateKey(key, "client key of user \"" + userName + "\""));
        }
        String token = body.path("token").asString("");
        String tokenFile = body.path("tokenFile").asString("");
        JsonNode exec = body.path("exec");
        if (!token.isEmpty()) {
            return config.withCredentials(Credentials.bearer(token));
        }
        if (!tokenFile.isEmpty()) {
            return config.withCredentials(new TokenFileCredentials(user.dir().resolve(tokenFile), scheduler));
        }
        if (exec.isObject()) {
            return config.withCredentials(execCredentials(userName, exec, user.dir(), scheduler));
        }
        if (body.has("auth-provider")) {
            throw new ConfigException("user \"" + userName + "\" uses auth-provider \""
                    + body.path("auth-provider").path("name").asString("") + "\", which is not supported: use an exec plugin");
        }
        if (body.has("username") && cert == null) {
            throw new ConfigException("user \"" + userName + "\" uses basic authentication, which is not supported");
        }
        return config;
    }

    private static Credentials execCredentials(String userName, JsonNode exec, Path dir, Scheduler scheduler) {
        String command = exec.path("command").asString("");
        if (command.isEmpty()) {
            throw new ConfigException("exec plugin of user \"" + userName + "\" has no command");
        }
        // as client-go: a command with a path separator is relative to the kubeconfig's directory
        if (command.contains("/") && !Path.of(command).isAbsolute()) {
            command = dir.resolve(command).normalize().toString();
        }
        List<String> argv = new ArrayList<>();
        argv.add(command);
        for (JsonNode arg : exec.path("args")) {
            argv.add(arg.asString(""));
        }
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode var : exec.path("env")) {
            env.put(var.path("name").asString(""), var.path("value").asString(""));
        }
        String apiVersion = exec.path("apiVersion").asString("");
        String hint = exec.path("installHint").asString("");
        return new ExecCredentials(argv, env, apiVersion.isEmpty() ? null : apiVersion, hint.isEmpty() ? null : hint,
                scheduler);
    }

    private static byte[] fileOrData(Entry entry, String fileField, String dataField) {
        String data = entry.body().path(dataField).asString("");
        if (!data.isEmpty()) {
            try {
                return Base64.getMimeDecoder().decode(data);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(dataField + " is not base64", e);
            }
        }
        String file = entry.body().path(fileField).asString("");
        if (file.isEmpty()) {
            return null;
        }
        Path path = entry.dir().resolve(file);
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + fileField + " " + path, e);
        }
    }
}
