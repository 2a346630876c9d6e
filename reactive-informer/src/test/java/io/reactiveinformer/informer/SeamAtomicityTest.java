package io.reactiveinformer.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Handlers added while a concurrent producer changes objects: each key arrives once as an initial add
 * of some version, then only strictly newer versions, ending at the final one.
 */
class SeamAtomicityTest {

    private static final int KEYS = 20;
    private static final int VERSIONS = 300;
    private static final int HANDLERS = 8;

    @RepeatedTest(3)
    void lateHandlersSeeEachKeyOnceThenOnlyLaterChanges() throws Exception {
        FakePodServer server = new FakePodServer();
        Scheduler delivery = Schedulers.newParallel("seam-delivery", 2);
        SharedIndexInformer<V1Pod> informer = SharedIndexInformer.builder(V1Pod.class, server)
                .scheduler(Schedulers.parallel()).deliveryScheduler(delivery).build();
        Disposable stop = informer.start();
        informer.hasSynced().block();

        Thread producer = new Thread(() -> {
            for (int v = 1; v <= VERSIONS; v++) {
                for (int k = 0; k < KEYS; k++) {
                    server.put("ns", "p" + k, Integer.toString(v));
                }
            }
            server.put("ns", "zz-end", "1");
        });
        List<Map<String, List<Notification<V1Pod>>>> perHandler = new ArrayList<>();
        List<CountDownLatch> ends = new ArrayList<>();
        producer.start();
        for (int h = 0; h < HANDLERS; h++) {
            Map<String, List<Notification<V1Pod>>> byKey = new HashMap<>();
            CountDownLatch end = new CountDownLatch(1);
            perHandler.add(byKey);
            ends.add(end);
            informer.notifications(h % 2 == 0 ? SubscriberOptions.defaults() : SubscriberOptions.defaults().unbounded())
                    .subscribe(n -> {
                        synchronized (byKey) {
                            byKey.computeIfAbsent(n.key(), k -> new ArrayList<>()).add(n);
                        }
                        if (n.key().equals("ns/zz-end")) {
                            end.countDown();
                        }
                    });
        }
        producer.join();
        for (CountDownLatch end : ends) {
            assertThat(end.await(30, TimeUnit.SECONDS)).isTrue();
        }

        for (Map<String, List<Notification<V1Pod>>> byKey : perHandler) {
            synchronized (byKey) {
                for (int k = 0; k < KEYS; k++) {
                    List<Notification<V1Pod>> seen = byKey.get("ns/p" + k);
                    assertThat(seen).isNotEmpty();
                    assertThat(seen.get(0)).isInstanceOf(Notification.Added.class);
                    int last = version(((Notification.Added<V1Pod>) seen.get(0)).object());
                    for (Notification<V1Pod> n : seen.subList(1, seen.size())) {
                        assertThat(n).isInstanceOf(Notification.Updated.class);
                        Notification.Updated<V1Pod> u = (Notification.Updated<V1Pod>) n;
                        assertThat(version(u.oldObject())).isEqualTo(last);
                        assertThat(version(u.newObject())).isGreaterThan(last);
                        last = version(u.newObject());
                    }
                    assertThat(last).isEqualTo(VERSIONS);
                }
            }
        }
        stop.dispose();
        delivery.dispose();
    }

    private static int version(V1Pod pod) {
        return Integer.parseInt(FakePodServer.valueOf(pod));
    }
}
