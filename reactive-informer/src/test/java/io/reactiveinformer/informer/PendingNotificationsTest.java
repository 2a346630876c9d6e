package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The COALESCE merge rules, one pending slot per key. */
class PendingNotificationsTest {

    private final PendingNotifications<V1Pod> pending = PendingNotifications.of(SubscriberOptions.defaults());

    private static V1Pod pod(String value, long rv) {
        return FakePodServer.pod("a", "p", value, rv);
    }

    private List<Object> drain() {
        List<Object> out = new ArrayList<>();
        Object next;
        while ((next = pending.peek()) != null) {
            pending.remove();
            out.add(next);
        }
        return out;
    }

    @Test
    void updatesAfterAnAddStayAnAddOfTheNewestState() {
        pending.offer(new Notification.Added<>("a/p", pod("1", 1), true), 0);
        pending.offer(new Notification.Updated<>("a/p", pod("1", 1), pod("2", 2), false), 0);
        pending.offer(new Notification.Updated<>("a/p", pod("2", 2), pod("3", 3), false), 0);
        assertThat(pending.depth()).isEqualTo(1);
        assertThat(drain()).singleElement().isInstanceOfSatisfying(Notification.Added.class, a -> {
            assertThat(FakePodServer.valueOf((V1Pod) a.object())).isEqualTo("3");
            assertThat(a.inInitialList()).isTrue();
        });
    }

    @Test
    void updatesMergeFromTheOldestToTheNewestAndAreAResyncOnlyIfAllWere() {
        pending.offer(new Notification.Updated<>("a/p", pod("1", 1), pod("1", 1), true), 0);
        pending.offer(new Notification.Updated<>("a/p", pod("1", 1), pod("2", 2), false), 0);
        assertThat(drain()).singleElement().isInstanceOfSatisfying(Notification.Updated.class, u -> {
            assertThat(FakePodServer.valueOf((V1Pod) u.oldObject())).isEqualTo("1");
            assertThat(FakePodServer.valueOf((V1Pod) u.newObject())).isEqualTo("2");
            assertThat(u.isResync()).isFalse();
        });
    }

    @Test
    void aDeletionFollowedByARecreationIsDeliveredAsBoth() {
        pending.offer(new Notification.Updated<>("a/p", pod("1", 1), pod("2", 2), false), 0);
        pending.offer(new Notification.Deleted<>("a/p", pod("2", 3), false), 0);
        pending.offer(new Notification.Added<>("a/p", pod("new", 4), false), 0);
        pending.offer(new Notification.Updated<>("a/p", pod("new", 4), pod("newer", 5), false), 0);
        assertThat(pending.depth()).isEqualTo(1);
        List<Object> out = drain();
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isInstanceOf(Notification.Deleted.class);
        assertThat(out.get(1)).isInstanceOfSatisfying(Notification.Added.class,
                a -> assertThat(FakePodServer.valueOf((V1Pod) a.object())).isEqualTo("newer"));
    }

    @Test
    void aDeletionAfterARecreationKeepsTheFirstDeletion() {
        pending.offer(new Notification.Deleted<>("a/p", pod("1", 2), false), 0);
        pending.offer(new Notification.Added<>("a/p", pod("2", 3), false), 0);
        pending.offer(new Notification.Deleted<>("a/p", pod("2", 4), false), 0);
        assertThat(drain()).singleElement().isInstanceOfSatisfying(Notification.Deleted.class,
                d -> assertThat(FakePodServer.valueOf((V1Pod) d.lastState())).isEqualTo("1"));
    }

    @Test
    void theSyncMarkerKeepsItsPlaceBehindEarlierKeys() {
        pending.offer(new Notification.Added<>("a/x", pod("1", 1), true), 0);
        pending.offerSynced(0);
        pending.offer(new Notification.Added<>("a/y", pod("1", 2), false), 0);
        pending.offer(new Notification.Updated<>("a/x", pod("1", 1), pod("2", 3), false), 0);
        assertThat(pending.depth()).isEqualTo(2);
        List<Object> out = drain();
        assertThat(out).hasSize(3);
        assertThat(((Notification<?>) out.get(0)).key()).isEqualTo("a/x");
        assertThat(out.get(1)).isSameAs(PendingNotifications.SYNCED);
        assertThat(((Notification<?>) out.get(2)).key()).isEqualTo("a/y");
    }

    @Test
    void aKeyPendingAgainAfterDeliveryQueuesBehindTheKeysPendingMeanwhile() {
        pending.offer(new Notification.Added<>("a/x", pod("1", 1), false), 0);
        pending.offer(new Notification.Added<>("a/y", pod("1", 2), false), 0);
        assertThat(((Notification<?>) pending.peek()).key()).isEqualTo("a/x");
        pending.remove();
        pending.offer(new Notification.Updated<>("a/x", pod("1", 1), pod("2", 3), false), 0);
        pending.offer(new Notification.Added<>("a/z", pod("1", 4), false), 0);
        assertThat(pending.depth()).isEqualTo(3);
        assertThat(drain()).extracting(n -> ((Notification<?>) n).key()).containsExactly("a/y", "a/x", "a/z");
        assertThat(pending.depth()).isZero();
    }

    @Test
    void theSyncMarkerIsPendingAtMostOnceAndCanBeQueuedAgainOnceDelivered() {
        pending.offerSynced(0);
        pending.offer(new Notification.Added<>("a/x", pod("1", 1), true), 0);
        pending.offerSynced(0);
        assertThat(pending.depth()).isEqualTo(1);
        List<Object> out = drain();
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isSameAs(PendingNotifications.SYNCED);
        assertThat(out.get(1)).isInstanceOf(Notification.Added.class);
        pending.offerSynced(0);
        assertThat(pending.peek()).isSameAs(PendingNotifications.SYNCED);
        assertThat(pending.depth()).isZero();
    }

    @Test
    void boundedRefusesBeyondItsCapacity() {
        PendingNotifications<V1Pod> bounded = PendingNotifications.of(SubscriberOptions.defaults().bounded(2));
        assertThat(bounded.offer(new Notification.Added<>("a/1", pod("1", 1), false), 0)).isTrue();
        bounded.offerSynced(0);
        assertThat(bounded.offer(new Notification.Added<>("a/2", pod("1", 2), false), 0)).isTrue();
        assertThat(bounded.offer(new Notification.Added<>("a/3", pod("1", 3), false), 0)).isFalse();
        assertThat(bounded.depth()).isEqualTo(2);
    }
}
