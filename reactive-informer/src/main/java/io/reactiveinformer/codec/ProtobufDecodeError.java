package io.reactiveinformer.codec;

/**
 * Bytes that are not what kube-apiserver writes in protobuf, found at {@link #offset()} of the array being
 * decoded. Thrown inside the protobuf decoding only; its entry points ({@link ProtobufCodec},
 * {@link ProtobufWatchFrames}) turn it into a {@code DecodeException} naming the offset in the response.
 */
final class ProtobufDecodeError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int offset;

    ProtobufDecodeError(String problem, int offset, Throwable cause) {
        super(problem, cause, false, false);
        this.offset = offset;
    }

    int offset() {
        return offset;
    }

    String problem() {
        return super.getMessage();
    }
}
