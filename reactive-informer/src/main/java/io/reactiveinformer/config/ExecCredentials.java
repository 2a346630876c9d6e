package io.reactiveinformer.config;

import java.io.IOException;
import java.io.InputStream;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import reactor.core.scheduler.Scheduler;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A client-go exec credential plugin ({@code client.authentication.k8s.io/v1} or {@code v1beta1}):
 * the command prints an {@code ExecCredential} whose {@code status.token} is used until its
 * {@code status.expirationTimestamp}, then the command runs again. The plugin runs non-interactively
 * ({@code KUBERNETES_EXEC_INFO} says so); its stderr goes to ours, as with kubectl.
 */
final class ExecCredentials extends CachedToken {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final List<String> command;
    private final Map<String, String> env;
    private final String apiVersion;
    private final String installHint;

    ExecCredentials(List<String> command, Map<String, String> env, String apiVersion, String installHint,
                    Scheduler clock) {
        super(clock);
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
        this.apiVersion = apiVersion;
        this.installHint = installHint;
    }

    @Override
    Token fetch(long nowMillis) {
        byte[] out = run();
        JsonNode credential;
        try {
            credential = JSON.readTree(out);
        } catch (JacksonException e) {
            // not the parser's message: it quotes the offending text, which may be a bare token
            var where = e.getLocation();
            throw new ConfigException(describe() + " printed no ExecCredential JSON (invalid at "
                    + (where == null ? "an unknown position" : "line " + where.getLineNr() + ", column " + where.getColumnNr())
                    + "; the output is not shown, as it may hold a credential)");
        }
        String kind = credential.path("kind").asString("");
        if (!"ExecCredential".equals(kind)) {
            throw new ConfigException(describe() + " printed kind \"" + kind + "\", expected ExecCredential");
        }
        if (apiVersion != null && !apiVersion.equals(credential.path("apiVersion").asString(""))) {
            throw new ConfigException(describe() + " printed apiVersion \"" + credential.path("apiVersion").asString("")
                    + "\", expected " + apiVersion);
        }
        JsonNode status = credential.path("status");
        String token = status.path("token").asString("");
        if (token.isEmpty()) {
            throw new ConfigException(describe() + " printed no status.token"
                    + (status.has("clientCertificateData") ? " (client certificates from exec plugins are not supported)" : ""));
        }
        long renewAt = Long.MAX_VALUE;
        String expiry = status.path("expirationTimestamp").asString("");
        if (!expiry.isEmpty()) {
            try {
                renewAt = OffsetDateTime.parse(expiry).toInstant().toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new ConfigException(describe() + " printed an invalid expirationTimestamp \"" + expiry + "\"");
            }
        }
        return new Token(token, renewAt);
    }

    private byte[] run() {
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(env);
        builder.environment().put("KUBERNETES_EXEC_INFO", "{\"apiVersion\":\"" + (apiVersion == null
                ? "client.authentication.k8s.io/v1" : apiVersion)
                + "\",\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new ConfigException(describe() + " could not be started"
                    + (installHint == null ? "" : ": " + installHint.strip()), e);
        }
        try (InputStream stdout = process.getInputStream()) {
            process.getOutputStream().close();
            byte[] out = stdout.readAllBytes();
            int exit = process.waitFor();
            if (exit != 0) {
                throw new ConfigException(describe() + " exited with status " + exit);
            }
            return out;
        } catch (IOException e) {
            process.destroyForcibly();
            throw new ConfigException(describe() + " failed", e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ConfigException(describe() + " was interrupted", e);
        }
    }

    private String describe() {
        return "exec credential plugin " + command.get(0);
    }

    @Override
    public String toString() {
        return "ExecCredentials[" + command.get(0) + "]";
    }
}
