package io.reactiveinformer.spring;

import java.time.Duration;
import org.springframework.beans.factory.DisposableBean;
import reactor.netty.resources.LoopResources;

/**
 * The event loops of the client and of the embedded simulated server, owned by the application context that
 * made them. On Reactor Netty's global loops instead, closing any other context of the JVM that disposes them
 * (Spring's {@code ReactorResourceFactory} does, with a WebFlux application or a {@code WebClient}) would
 * cut this one's watches and take its simulated server down.
 */
final class InformerEventLoops implements DisposableBean {

    /** Time for the loops to finish the tasks queued before the close; the client and the server closed first. */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(5);

    private final LoopResources loops = LoopResources.create("reactive-informer");

    LoopResources resources() {
        return loops;
    }

    /** Runs after the client and the server are closed: they depend on this bean, so Spring destroys them first. */
    @Override
    public void destroy() {
        loops.disposeLater(Duration.ZERO, SHUTDOWN_TIMEOUT).block();
    }
}
