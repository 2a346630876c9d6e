package io.reactiveinformer.spring;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.netty.Connection;

/** Closes the connection under a WebFlux response where the server is Reactor Netty. */
final class ReactorNettyConnections {

    private ReactorNettyConnections() {
    }

    /** Whether the response was Reactor Netty's, whose connection is now closing. */
    static boolean close(ServerHttpResponse response) {
        Object nativeResponse;
        try {
            nativeResponse = ServerHttpResponseDecorator.getNativeResponse(response);
        } catch (IllegalArgumentException notUnwrappable) {
            return false;
        }
        if (nativeResponse instanceof Connection connection) {
            connection.dispose();
            return true;
        }
        return false;
    }
}
