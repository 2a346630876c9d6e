package io.reactiveinformer.examples.widget;

import io.reactiveinformer.controller.Request;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What the operator keeps outside Kubernetes, which only a finalizer can clean up: one file per Widget,
 * holding its message. Both operations are idempotent, as a reconcile and a cleanup must be.
 */
interface WidgetFiles {

    /** Writes the Widget's file (replacing it atomically); on {@code Schedulers.boundedElastic()}. */
    Mono<Void> write(Request widget, String content);

    /** Deletes the Widget's file if it exists; on {@code Schedulers.boundedElastic()}. */
    Mono<Void> delete(Request widget);

    /** The files {@code namespace_name.txt} in {@code directory}, created on the first write. */
    static WidgetFiles in(Path directory) {
        return new WidgetFiles() {
            @Override
            public Mono<Void> write(Request widget, String content) {
                return Mono.<Void>fromRunnable(() -> {
                    try {
                        Files.createDirectories(directory);
                        Path written = Files.writeString(Files.createTempFile(directory, ".widget", ".tmp"), content,
                                StandardCharsets.UTF_8);
                        Files.move(written, fileOf(directory, widget), StandardCopyOption.REPLACE_EXISTING,
                                StandardCopyOption.ATOMIC_MOVE);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).subscribeOn(Schedulers.boundedElastic());
            }

            @Override
            public Mono<Void> delete(Request widget) {
                return Mono.<Void>fromRunnable(() -> {
                    try {
                        Files.deleteIfExists(fileOf(directory, widget));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).subscribeOn(Schedulers.boundedElastic());
            }

            @Override
            public String toString() {
                return "WidgetFiles[" + directory + "]";
            }
        };
    }

    /** The file of {@code widget} in {@code directory}; names and namespaces never contain {@code _}. */
    static Path fileOf(Path directory, Request widget) {
        return directory.resolve(widget.namespace() + "_" + widget.name() + ".txt");
    }
}
