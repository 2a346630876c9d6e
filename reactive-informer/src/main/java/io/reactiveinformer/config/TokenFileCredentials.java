package io.reactiveinformer.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import reactor.core.scheduler.Scheduler;

/** A bearer token read from a file that may be rewritten at any time (service-account token rotation). */
final class TokenFileCredentials extends CachedToken {

    /** How long a read token is trusted before the file is read again (client-go uses the same). */
    static final Duration REREAD_AFTER = Duration.ofMinutes(1);

    private final Path file;

    TokenFileCredentials(Path file, Scheduler clock) {
        super(clock);
        this.file = file;
    }

    @Override
    Token fetch(long nowMillis) {
        String token;
        try {
            token = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new ConfigException("cannot read token file " + file, e);
        }
        if (token.isEmpty()) {
            throw new ConfigException("token file " + file + " is empty");
        }
        return new Token(token, nowMillis + REREAD_AFTER.toMillis());
    }

    @Override
    public String toString() {
        return "TokenFileCredentials[" + file + "]";
    }
}
