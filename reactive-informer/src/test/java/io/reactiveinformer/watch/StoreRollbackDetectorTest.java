package io.reactiveinformer.watch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StoreRollbackDetectorTest {

    private final StoreRollbackDetector detector = new StoreRollbackDetector();

    @Test
    void aStoreOlderThanTheNewestSyncedVersionHasRolledBack() {
        detector.listed("100");
        detector.observed("140");
        detector.connectionLost();

        assertThat(detector.probeDue()).isTrue();
        assertThat(detector.rolledBack("120")).isTrue();
        assertThat(detector.probeDue()).isFalse();
    }

    @Test
    void aStoreAtOrPastTheNewestSyncedVersionHasNot() {
        detector.listed("100");
        detector.observed("140");

        assertThat(detector.rolledBack("140")).isFalse();
        assertThat(detector.rolledBack("9000")).isFalse();
    }

    @Test
    void versionsCompareAsNumbersNotAsStrings() {
        detector.listed("99");
        assertThat(detector.rolledBack("100")).isFalse();
        detector.observed("1000");
        assertThat(detector.rolledBack("999")).isTrue();
    }

    @Test
    void aRelistIsTheNewBaselineEvenWhenOlder() {
        detector.listed("500");
        detector.connectionLost();
        detector.listed("300");

        assertThat(detector.probeDue()).isFalse();
        assertThat(detector.rolledBack("300")).isFalse();
        assertThat(detector.newestSynced()).isEqualTo(300);
    }

    @Test
    void anyWatchEventSettlesAPendingProbe() {
        detector.listed("10");
        detector.connectionLost();
        detector.observed(null);

        assertThat(detector.probeDue()).isFalse();
    }

    @Test
    void olderEventsDoNotLowerTheBaseline() {
        detector.listed("10");
        detector.observed("30");
        detector.observed("20");

        assertThat(detector.newestSynced()).isEqualTo(30);
    }

    @Test
    void opaqueVersionsNeverCountAsARollback() {
        detector.listed("abc");
        detector.connectionLost();
        assertThat(detector.probeDue()).as("nothing to compare against").isFalse();
        assertThat(detector.rolledBack("1")).isFalse();

        detector.listed("50");
        assertThat(detector.rolledBack("")).isFalse();
        assertThat(detector.rolledBack("4x")).isFalse();
        assertThat(detector.rolledBack("99999999999999999999")).isFalse();
    }
}
