package io.reactiveinformer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Status;
import io.reactiveinformer.api.KubernetesApiException;
import io.reactiveinformer.api.KubernetesClientException;
import io.reactiveinformer.api.TransportException;
import io.reactiveinformer.informer.InformerHealth;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** An outage, a denial of access and an unexpected stop are each told once; recovery once. */
class InformerHealthLogTest {

    private static final KubernetesClientException REFUSED =
            new TransportException("GET /api/v1/pods: connection refused", new ConnectException("refused"));
    private static final KubernetesClientException FORBIDDEN = KubernetesApiException.of("GET /api/v1/pods", 403,
            new V1Status().code(403).reason("Forbidden").message("pods is forbidden"), null);

    private final InformerHealthLog health = new InformerHealthLog();
    private final List<InformerHealthLog.Line> lines = new ArrayList<>();

    @Test
    void fifteenFailedRetriesAreOneWarningAndTheirEndOneInfo() {
        feed(synced(0, null, false));
        feed(synced(1, REFUSED, false));
        assertThat(lines).as("one failure is routine").isEmpty();
        for (int failures = 2; failures <= 16; failures++) {
            feed(synced(failures, REFUSED, false));
        }
        feed(synced(0, REFUSED, false));

        assertThat(lines).extracting(InformerHealthLog.Line::level).containsExactly(Level.WARN, Level.INFO);
        assertThat(lines.get(0).message()).startsWith("pods: cannot list or watch").contains("connection refused");
        assertThat(lines.get(1).message()).isEqualTo("pods: follows the server again");
    }

    @Test
    void aDenialIsOneWarningThoughEveryRetryIsDeniedAgain() {
        feed(synced(0, null, false));
        for (int failures = 1; failures <= 10; failures++) {
            feed(synced(failures, FORBIDDEN, true));
        }
        assertThat(lines).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.WARN);
            assertThat(line.message()).startsWith("pods: access denied").contains("stale until access returns");
        });
    }

    @Test
    void aStopByItsOwnerIsNotAWarningButAStopOnItsOwnIs() {
        feed(synced(0, null, false));
        feed(new InformerHealth("pods", true, true, true, Duration.ZERO, 0, null, false, 0, null));
        assertThat(lines).isEmpty();

        InformerHealthLog other = new InformerHealthLog();
        InformerHealthLog.Line line = other.next(new InformerHealth("pods", true, true, true, Duration.ZERO, 0, null,
                false, 0, new IllegalStateException("the watch stream ended")));
        assertThat(line.level()).isEqualTo(Level.WARN);
        assertThat(line.message()).contains("stopped").contains("the watch stream ended");
    }

    @Test
    void failuresBeforeTheFirstSyncAreAnOutageToo() {
        feed(new InformerHealth("pods", true, false, false, null, 3, REFUSED, false, 0, null));
        assertThat(lines).singleElement().extracting(InformerHealthLog.Line::level).isEqualTo(Level.WARN);
    }

    private void feed(InformerHealth h) {
        lines.add(health.next(h));
        lines.removeIf(Objects::isNull);
    }

    private static InformerHealth synced(int failures, KubernetesClientException lastError, boolean forbidden) {
        return new InformerHealth("pods", true, true, false, Duration.ofSeconds(1), failures, lastError, forbidden, 0,
                null);
    }
}
