package io.reactiveinformer.spring;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.ClassUtils;
import reactor.netty.Connection;

/** Closes the connection under a WebFlux response where the server is Reactor Netty (an optional dependency). */
final class ReactorNettyConnections {

    private static final boolean PRESENT = ClassUtils.isPresent("reactor.netty.Connection",
            ReactorNettyConnections.class.getClassLoader());

    private ReactorNettyConnections() {
    }

    /** Whether the response was Reactor Netty's, whose connection is now closing. */
    static boolean close(ServerHttpResponse response) {
        if (!PRESENT) {
            return false;
        }
        Object nativeResponse;
        try {
            nativeResponse = ServerHttpResponseDecorator.getNativeResponse(response);
        } catch (IllegalArgumentException notUnwrappable) {
            return false;
        }
        return Netty.close(nativeResponse);
    }

    /** Loaded only when Reactor Netty is on the class path. */
    private static final class Netty {

        static boolean close(Object nativeResponse) {
            if (nativeResponse instanceof Connection connection) {
                connection.dispose();
                return true;
            }
            return false;
        }
    }
}
