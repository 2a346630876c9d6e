package io.reactiveinformer.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Condition;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

    private static final Instant T1 = Instant.parse("2026-01-01T10:00:00.750Z");
    private static final Instant T2 = Instant.parse("2026-01-01T11:00:00Z");

    private static V1Condition ready(String status, String reason, long generation) {
        return new V1Condition().type("Ready").status(status).reason(reason).message(reason + " message")
                .observedGeneration(generation);
    }

    private static OffsetDateTime utc(String instant) {
        return OffsetDateTime.ofInstant(Instant.parse(instant), ZoneOffset.UTC);
    }

    @Test
    void aNewConditionIsAppendedWithTheTransitionTimeInWholeSeconds() {
        V1Condition other = new V1Condition().type("Synced").status("True").reason("Ok").message("")
                .lastTransitionTime(utc("2025-12-31T00:00:00Z"));
        List<V1Condition> conditions = Conditions.set(List.of(other), ready("False", "Creating", 1), T1);

        assertThat(conditions).extracting(V1Condition::getType).containsExactly("Synced", "Ready");
        V1Condition set = conditions.get(1);
        assertThat(set.getLastTransitionTime()).isEqualTo(utc("2026-01-01T10:00:00Z"));
        assertThat(set.getObservedGeneration()).isEqualTo(1);
        assertThat(set.getReason()).isEqualTo("Creating");
    }

    @Test
    void theTransitionTimeChangesOnlyWithTheStatus() {
        List<V1Condition> created = Conditions.set(null, ready("False", "Creating", 1), T1);

        List<V1Condition> sameStatus = Conditions.set(created, ready("False", "Waiting", 2), T2);
        assertThat(sameStatus.get(0).getLastTransitionTime()).isEqualTo(utc("2026-01-01T10:00:00Z"));
        assertThat(sameStatus.get(0).getReason()).isEqualTo("Waiting");
        assertThat(sameStatus.get(0).getMessage()).isEqualTo("Waiting message");
        assertThat(sameStatus.get(0).getObservedGeneration()).isEqualTo(2);

        List<V1Condition> flipped = Conditions.set(sameStatus, ready("True", "Available", 2), T2);
        assertThat(flipped.get(0).getLastTransitionTime()).isEqualTo(utc("2026-01-01T11:00:00Z"));
        assertThat(Conditions.isTrue(flipped, "Ready")).isTrue();
    }

    @Test
    void settingWhatIsAlreadyThereGivesAnEqualListAndAGivenTransitionTimeWins() {
        List<V1Condition> created = Conditions.set(null, ready("True", "Available", 3), T1);
        assertThat(Conditions.set(created, ready("True", "Available", 3), T2)).as("no status write needed")
                .isEqualTo(created);

        OffsetDateTime given = utc("2026-01-01T09:59:00Z");
        List<V1Condition> flipped = Conditions.set(created, ready("False", "Broken", 3).lastTransitionTime(given), T2);
        assertThat(flipped.get(0).getLastTransitionTime()).isEqualTo(given);
    }

    @Test
    void theInputIsNeverChanged() {
        V1Condition cached = ready("False", "Creating", 1).lastTransitionTime(utc("2026-01-01T08:00:00Z"));
        List<V1Condition> conditions = new ArrayList<>(List.of(cached));

        Conditions.set(conditions, ready("True", "Available", 2), T2);
        Conditions.remove(conditions, "Ready");

        assertThat(conditions).containsExactly(cached);
        assertThat(cached.getStatus()).isEqualTo("False");
        assertThat(cached.getObservedGeneration()).isEqualTo(1);
    }

    @Test
    void removeAndFind() {
        List<V1Condition> conditions = Conditions.set(null, ready("True", "Available", 1), T1);

        assertThat(Conditions.find(conditions, "Ready")).isPresent();
        assertThat(Conditions.find(null, "Ready")).isEmpty();
        assertThat(Conditions.isTrue(conditions, "Synced")).isFalse();
        assertThat(Conditions.remove(conditions, "Ready")).isEmpty();
        assertThat(Conditions.remove(conditions, "Synced")).isEqualTo(conditions);
    }
}
