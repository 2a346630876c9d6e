package io.reactiveinformer.codec;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;

/**
 * An object as kube-apiserver writes it in {@code application/vnd.kubernetes.protobuf}: the four bytes
 * {@code k8s\0}, then a {@code runtime.Unknown} message whose {@code typeMeta} names the kind and whose
 * {@code raw} holds the object's own message (an object or a list alike). This is where {@code raw} is in
 * the array: the object is decoded in place.
 *
 * <p>Immutable.
 */
record ProtobufEnvelope(String apiVersion, String kind, int rawOffset, int rawLength, String contentType,
        String contentEncoding) {

    private static final byte[] MAGIC = {'k', '8', 's', 0};

    private static final int TYPE_META = 1 << 3 | 2;
    private static final int RAW = 2 << 3 | 2;
    private static final int CONTENT_ENCODING = 3 << 3 | 2;
    private static final int CONTENT_TYPE = 4 << 3 | 2;
    private static final int API_VERSION = 1 << 3 | 2;
    private static final int KIND = 2 << 3 | 2;

    static boolean hasMagic(byte[] bytes, int offset, int length) {
        return length >= MAGIC.length && bytes[offset] == MAGIC[0] && bytes[offset + 1] == MAGIC[1]
                && bytes[offset + 2] == MAGIC[2] && bytes[offset + 3] == MAGIC[3];
    }

    /**
     * Reads the envelope of the {@code length} bytes at {@code offset}.
     *
     * @throws ProtobufDecodeError at the first byte that does not fit, naming its offset in {@code bytes}
     */
    static ProtobufEnvelope read(byte[] bytes, int offset, int length) {
        if (!hasMagic(bytes, offset, length)) {
            throw new ProtobufDecodeError("no protobuf envelope (the k8s\\0 prefix)", offset, null);
        }
        int start = offset + MAGIC.length;
        CodedInputStream in = CodedInputStream.newInstance(bytes, start, length - MAGIC.length);
        String apiVersion = "";
        String kind = "";
        String contentType = "";
        String contentEncoding = "";
        int rawOffset = -1;
        int rawLength = 0;
        try {
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (tag) {
                    case TYPE_META -> {
                        int limit = in.pushLimit(in.readRawVarint32());
                        for (int t = in.readTag(); t != 0; t = in.readTag()) {
                            switch (t) {
                                case API_VERSION -> apiVersion = in.readStringRequireUtf8();
                                case KIND -> kind = in.readStringRequireUtf8();
                                default -> in.skipField(t);
                            }
                        }
                        in.popLimit(limit);
                    }
                    case RAW -> {
                        rawLength = in.readRawVarint32();
                        rawOffset = start + in.getTotalBytesRead();
                        in.skipRawBytes(rawLength);
                    }
                    case CONTENT_TYPE -> contentType = in.readStringRequireUtf8();
                    case CONTENT_ENCODING -> contentEncoding = in.readStringRequireUtf8();
                    default -> in.skipField(tag);
                }
            }
        } catch (IOException e) {
            throw new ProtobufDecodeError("malformed envelope: " + e.getMessage(), start + in.getTotalBytesRead(), e);
        }
        if (rawOffset < 0) {
            throw new ProtobufDecodeError("an envelope without an object", offset + length, null);
        }
        return new ProtobufEnvelope(apiVersion, kind, rawOffset, rawLength, contentType, contentEncoding);
    }
}
