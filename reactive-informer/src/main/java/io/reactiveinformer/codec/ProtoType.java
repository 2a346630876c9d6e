package io.reactiveinformer.codec;

import java.io.IOException;

/**
 * How to decode one kind from protobuf into its model class: the generated decoder of its message, and how to
 * set the {@code apiVersion} and {@code kind} the envelope carries (the message itself has no type fields).
 * {@code ProtoDecoders.type(Class)} (generated) has one for each model class of a top-level kind or list.
 *
 * <p>Immutable and thread-safe.
 */
record ProtoType<T>(String kind, Reader<T> reader, TypeMeta<T> typeMeta) {

    /**
     * A generated {@code read*} method: the fields of one message, up to the end of {@code in}'s current limit,
     * then {@code limit} restored ({@link ProtoInput#NO_LIMIT} for a whole input).
     */
    @FunctionalInterface
    interface Reader<T> {
        T read(ProtoInput in, int limit) throws IOException;
    }

    @FunctionalInterface
    interface TypeMeta<T> {
        void set(T object, String apiVersion, String kind);
    }
}
