package io.reactiveinformer.test.server;

/** The type of a watch event, as the API server writes it in the {@code type} field. */
public enum EventType {
    ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
}
