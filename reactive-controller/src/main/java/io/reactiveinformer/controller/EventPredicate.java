package io.reactiveinformer.controller;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Decides which notifications of a watched informer become requests (controller-runtime's
 * {@code predicate.Predicate}). It is mostly about updates: {@link #update} is the one abstract method,
 * so a lambda {@code (oldObject, newObject) -> ...} is a predicate, and adds and deletions pass unless a
 * predicate built with {@link #of} says otherwise.
 *
 * <p>Composition: {@link #and} and {@link #or} combine the decisions on each kind of notification;
 * {@link #negate} flips the decision on updates only and keeps this predicate's decisions on adds and
 * deletions, because a change predicate ("the generation changed") says nothing about adds and
 * deletions, and neither should its negation (controller-runtime's {@code Not} also drops every add and
 * deletion, a well-known surprise).
 *
 * <p>Called on the informer's delivery thread for every notification: must be fast and must not block.
 * Objects are shared with the cache: do not modify them.
 *
 * @param <T> the object type
 */
@FunctionalInterface
public interface EventPredicate<T extends KubernetesObject> {

    /** Whether the change from {@code oldObject} to {@code newObject} (possibly a resync: equal versions) matters. */
    boolean update(T oldObject, T newObject);

    /** Whether the appearance of {@code object} matters; by default it does. */
    default boolean add(T object) {
        return true;
    }

    /** Whether the deletion of an object last seen as {@code lastState} matters; by default it does. */
    default boolean delete(T lastState) {
        return true;
    }

    /** Passes a notification when both predicates pass it. */
    default EventPredicate<T> and(EventPredicate<? super T> other) {
        Objects.requireNonNull(other, "other");
        return of(o -> add(o) && other.add(o), (o, n) -> update(o, n) && other.update(o, n),
                o -> delete(o) && other.delete(o));
    }

    /** Passes a notification when either predicate passes it. */
    default EventPredicate<T> or(EventPredicate<? super T> other) {
        Objects.requireNonNull(other, "other");
        return of(o -> add(o) || other.add(o), (o, n) -> update(o, n) || other.update(o, n),
                o -> delete(o) || other.delete(o));
    }

    /** Passes the updates this predicate drops and drops those it passes; adds and deletions as this predicate. */
    default EventPredicate<T> negate() {
        return of(this::add, (o, n) -> !update(o, n), this::delete);
    }

    /** {@code predicate.negate()}, for reading as {@code not(generationChanged())}. */
    static <T extends KubernetesObject> EventPredicate<T> not(EventPredicate<T> predicate) {
        return predicate.negate();
    }

    /** A predicate deciding every kind of notification. */
    static <T extends KubernetesObject> EventPredicate<T> of(Predicate<? super T> add,
                                                             BiPredicate<? super T, ? super T> update,
                                                             Predicate<? super T> delete) {
        Objects.requireNonNull(add, "add");
        Objects.requireNonNull(update, "update");
        Objects.requireNonNull(delete, "delete");
        return new EventPredicate<>() {
            @Override
            public boolean update(T oldObject, T newObject) {
                return update.test(oldObject, newObject);
            }

            @Override
            public boolean add(T object) {
                return add.test(object);
            }

            @Override
            public boolean delete(T lastState) {
                return delete.test(lastState);
            }
        };
    }

    /** Passes every notification. */
    static <T extends KubernetesObject> EventPredicate<T> always() {
        return (o, n) -> true;
    }

    /**
     * Updates that changed {@code metadata.generation}, i.e. the spec (status-only writes and metadata
     * edits do not bump it). Objects without a generation, such as ConfigMaps, never pass: do not use it
     * for them.
     */
    static <T extends KubernetesObject> EventPredicate<T> generationChanged() {
        return (o, n) -> changed(o, n, V1ObjectMeta::getGeneration);
    }

    /** Updates that changed {@code metadata.resourceVersion}: every real change, but no resync. */
    static <T extends KubernetesObject> EventPredicate<T> resourceVersionChanged() {
        return (o, n) -> changed(o, n, V1ObjectMeta::getResourceVersion);
    }

    /** Updates that changed {@code metadata.labels} (no labels and empty labels are the same). */
    static <T extends KubernetesObject> EventPredicate<T> labelsChanged() {
        return (o, n) -> changed(o, n, m -> emptyIfNull(m.getLabels()));
    }

    /** Updates that changed {@code metadata.annotations} (no annotations and empty ones are the same). */
    static <T extends KubernetesObject> EventPredicate<T> annotationsChanged() {
        return (o, n) -> changed(o, n, m -> emptyIfNull(m.getAnnotations()));
    }

    private static boolean changed(KubernetesObject oldObject, KubernetesObject newObject,
                                   Function<V1ObjectMeta, Object> field) {
        V1ObjectMeta before = oldObject.getMetadata();
        V1ObjectMeta after = newObject.getMetadata();
        if (before == null || after == null) {
            return false;
        }
        return !Objects.equals(field.apply(before), field.apply(after));
    }

    private static Map<String, String> emptyIfNull(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }
}
