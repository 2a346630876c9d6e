package io.reactiveinformer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.blockhound.integration.BlockHoundIntegration;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Guards the build: every test JVM must run with BlockHound installed. */
class BlockHoundActiveTest {

    @Test
    void blockingCallOnParallelSchedulerFails() {
        Mono<Boolean> blocking = Mono.fromCallable(() -> new CountDownLatch(1).await(10, TimeUnit.MILLISECONDS))
                .subscribeOn(Schedulers.parallel());

        Throwable error = blocking.<Throwable>map(ignored -> new AssertionError("the blocking call was allowed"))
                .onErrorResume(Mono::just)
                .block(Duration.ofSeconds(10));

        assertThat(error).isInstanceOf(BlockingOperationError.class);
    }

    @Test
    void sameCallOnBoundedElasticIsAllowed() {
        assertThatCode(() -> Mono.fromCallable(() -> new CountDownLatch(1).await(1, TimeUnit.MILLISECONDS))
                        .subscribeOn(Schedulers.boundedElastic())
                        .block(Duration.ofSeconds(10)))
                .doesNotThrowAnyException();
    }

    /**
     * The library's allowances are found by BlockHound's service loading and name JDK methods that exist: a
     * JDK that renamed one would silently bring back the failures they prevent (a contended lock handover in
     * TLS or in cancelling a timer, on an event loop).
     */
    @Test
    void theLibrarysAllowancesAreRegisteredAndNameMethodsThatExist() throws Exception {
        assertThat(ServiceLoader.load(BlockHoundIntegration.class).stream().map(p -> p.type().getName()))
                .contains("io.reactiveinformer.client.HttpTransport$BlockHoundSupport",
                        "io.reactiveinformer.watch.IdleWatchGuard$BlockHoundSupport",
                        "io.reactiveinformer.informer.DeliveryScheduler$BlockHoundSupport");
        assertThat(Class.forName("sun.security.ssl.SSLSessionImpl").getDeclaredMethod("getPacketBufferSize")).isNotNull();
        assertThat(Class.forName("sun.security.ssl.SSLSessionImpl").getDeclaredMethod("getApplicationBufferSize")).isNotNull();
        assertThat(Class.forName("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue")
                .getDeclaredMethod("remove", Object.class)).isNotNull();
        assertThat(Class.forName("io.netty.buffer.AdaptivePoolingAllocator$Magazine").getDeclaredMethod("free")).isNotNull();
    }
}
