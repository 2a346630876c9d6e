package io.reactiveinformer.test.server;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Something going wrong with one request to the {@link SimulatedApiServer}. Schedule faults with
 * its {@link FaultPlan}. Stream faults ({@link #closeAfterEvents}, the inserted lines) only make
 * sense for watches; on other requests they act after the body, or not at all. They keep their meaning on
 * a protobuf watch ({@code application/vnd.kubernetes.protobuf;stream=watch}): events are length-prefixed
 * frames there, inserted bytes go between frames, an event the fault writes is a frame, an error a
 * protobuf {@code Status}.
 */
public sealed interface Fault {

    /** Answers with an error {@code Status} instead of serving the request. */
    record Respond(int code, String reason, String message, Duration retryAfter) implements Fault {
        public Respond {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    /** Serves the request normally after a delay (on the server's scheduler). */
    record Delay(Duration delay) implements Fault {
        public Delay {
            Objects.requireNonNull(delay, "delay");
        }
    }

    /**
     * Reads the request, then closes the connection without a byte of response: what a client meets when
     * it sends on a kept-alive connection the server has just closed (an idle timeout, a restart) before it
     * has read the close.
     */
    record CloseWithoutResponse() implements Fault {
    }

    /** Serves the request but closes the connection after this many body bytes (mid-object if it falls there). */
    record CloseAfterBytes(long bytes) implements Fault {
    }

    /** Serves a watch but closes the connection abruptly (no final chunk) after this many events. */
    record CloseAfterEvents(int events) implements Fault {
    }

    /** Writes these bytes into a watch stream after this many events, then carries on. */
    record Insert(int afterEvents, byte[] bytes) implements Fault {
        public Insert {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }

    /** Writes an {@code ADDED} event whose object has no metadata after this many events, then carries on. */
    record ObjectWithoutMetadata(int afterEvents) implements Fault {
    }

    /**
     * Writes an event of a type no server sends ({@code SURPRISE}) after this many events, then carries on: in
     * JSON {@code {"type":"SURPRISE","object":{}}}, in protobuf a frame holding an empty object of the watched
     * kind.
     */
    record UnknownEventType(int afterEvents) implements Fault {
    }

    /**
     * Writes the first half of the event after this many, then ends the response cleanly: the stream stops
     * inside a frame (in JSON, inside a line).
     */
    record TruncatedFrame(int afterEvents) implements Fault {
    }

    /**
     * On a protobuf watch, the frame of the event after this many has a length prefix one more than its length
     * (so the frame takes the first byte of the next one, and the stream is out of step from there); a JSON
     * watch, which has no lengths, is written as it is.
     */
    record WrongLength(int afterEvents) implements Fault {
    }

    /** Answers a watch with 200, then one {@code ERROR} event with a 410 Expired {@code Status}, then ends it. */
    record ExpiredWatch() implements Fault {
    }

    /** Answers a watch with 200 and headers, then never sends a byte nor closes (ignoring timeoutSeconds). */
    record SilentWatch() implements Fault {
    }

    static Fault status(int code, String reason, String message) {
        return new Respond(code, reason, message, null);
    }

    /** 429 with {@code Retry-After}, as API priority and fairness sends it. */
    static Fault tooManyRequests(Duration retryAfter) {
        return new Respond(429, "TooManyRequests", "Too many requests, please try again later.", retryAfter);
    }

    static Fault internalError() {
        return new Respond(500, "InternalError", "Internal error occurred: simulated failure", null);
    }

    static Fault forbidden() {
        return new Respond(403, "Forbidden", "the simulated server forbids this request", null);
    }

    static Fault unauthorized() {
        return new Respond(401, "Unauthorized", "Unauthorized", null);
    }

    static Fault delay(Duration delay) {
        return new Delay(delay);
    }

    static Fault closeWithoutResponse() {
        return new CloseWithoutResponse();
    }

    static Fault closeAfterBytes(long bytes) {
        return new CloseAfterBytes(bytes);
    }

    static Fault closeAfterEvents(int events) {
        return new CloseAfterEvents(events);
    }

    static Fault expiredWatch() {
        return new ExpiredWatch();
    }

    static Fault silentWatch() {
        return new SilentWatch();
    }

    /**
     * {@code length} bytes that are not JSON (seeded, so the same seed gives the same bytes); on a protobuf
     * watch, their first byte starts a length prefix of more than 2 GB.
     */
    static Fault garbage(int afterEvents, int length, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        if (length > 0) {
            bytes[0] = '}';
        }
        return new Insert(afterEvents, bytes);
    }

    /** An event of a type no server sends (see {@link UnknownEventType}). */
    static Fault unknownEventType(int afterEvents) {
        return new UnknownEventType(afterEvents);
    }

    static Fault truncatedFrame(int afterEvents) {
        return new TruncatedFrame(afterEvents);
    }

    static Fault wrongLength(int afterEvents) {
        return new WrongLength(afterEvents);
    }

    static Fault objectWithoutMetadata(int afterEvents) {
        return new ObjectWithoutMetadata(afterEvents);
    }
}
