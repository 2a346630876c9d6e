package io.reactiveinformer.controller;

import io.kubernetes.client.openapi.models.V1Condition;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Status conditions ({@code metav1.Condition}) as apimachinery's {@code meta.SetStatusCondition} and its
 * siblings keep them, without mutating their input: the lists and conditions given may be the cache's shared
 * objects, so every change is made on copies. Compare the result with the input to know whether a status write
 * is needed.
 */
public final class Conditions {

    private Conditions() {
    }

    /**
     * The conditions with {@code condition} set: a new type is appended; an existing one takes its status,
     * reason, message and observedGeneration. Its {@code lastTransitionTime} changes only when it is new or its
     * status changes, to {@code condition}'s own if set, else to {@code now} truncated to seconds (what the API
     * server stores, so that a condition read back equals the one written). The order of the others is kept.
     *
     * @param conditions the current conditions; {@code null} is none
     * @param now        the time of the transition, typically the controller's scheduler's
     */
    public static List<V1Condition> set(List<V1Condition> conditions, V1Condition condition, Instant now) {
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(condition.getType(), "condition.type");
        Objects.requireNonNull(now, "now");
        List<V1Condition> result = new ArrayList<>(conditions == null ? List.of() : conditions);
        OffsetDateTime transition = condition.getLastTransitionTime() != null ? condition.getLastTransitionTime()
                : OffsetDateTime.ofInstant(now.truncatedTo(ChronoUnit.SECONDS), ZoneOffset.UTC);
        for (int i = 0; i < result.size(); i++) {
            V1Condition existing = result.get(i);
            if (condition.getType().equals(existing.getType())) {
                boolean transitioned = !Objects.equals(existing.getStatus(), condition.getStatus());
                result.set(i, copy(condition, transitioned ? transition : existing.getLastTransitionTime()));
                return result;
            }
        }
        result.add(copy(condition, transition));
        return result;
    }

    /** The conditions without the one of {@code type} (the same content when there is none). */
    public static List<V1Condition> remove(List<V1Condition> conditions, String type) {
        Objects.requireNonNull(type, "type");
        List<V1Condition> result = new ArrayList<>(conditions == null ? List.of() : conditions);
        result.removeIf(c -> type.equals(c.getType()));
        return result;
    }

    /** The condition of {@code type}, if any. */
    public static Optional<V1Condition> find(List<V1Condition> conditions, String type) {
        Objects.requireNonNull(type, "type");
        return conditions == null ? Optional.empty()
                : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    /** Whether the condition of {@code type} is present with status {@code "True"}. */
    public static boolean isTrue(List<V1Condition> conditions, String type) {
        return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
    }

    private static V1Condition copy(V1Condition condition, OffsetDateTime lastTransitionTime) {
        return new V1Condition().type(condition.getType()).status(condition.getStatus()).reason(condition.getReason())
                .message(condition.getMessage()).observedGeneration(condition.getObservedGeneration())
                .lastTransitionTime(lastTransitionTime);
    }
}
