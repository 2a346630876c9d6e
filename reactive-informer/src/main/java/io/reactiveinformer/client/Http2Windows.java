package io.reactiveinformer.client;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClient;

/**
 * The HTTP/2 flow-control windows this client grants the API server: how far the server may write ahead of
 * what the client has read, on each stream ({@value #STREAM_WINDOW} bytes) and on the connection
 * ({@value #CONNECTION_WINDOW} bytes), the values of Go's HTTP/2 transport, so of client-go.
 *
 * <p>Why: HTTP/2's defaults are 64 KiB for both, so the server stops every 64 KiB until a {@code WINDOW_UPDATE}
 * comes back. A 50 MB list or streaming list is then some 800 stops, each a wake-up of the server's writer,
 * which a busy API server makes slow: against kube-apiserver on a loaded 2-core machine, a streaming list of
 * 10,000 ConfigMaps took 2 to 7 times what the same client took with these windows. The stream window bounds
 * what one stream a subscriber stopped reading can hold ({@value #STREAM_WINDOW} bytes in the channel's
 * inbound buffer); the connection window is large so that such streams never exhaust it and stall the others
 * (the informers' lists and watches share a connection).
 *
 * <p>The stream window is a setting ({@code SETTINGS_INITIAL_WINDOW_SIZE}) sent with the connection's
 * preface. The connection's window has no setting: it is widened with one {@code WINDOW_UPDATE} when its first
 * stream is connected, on the connection's event loop.
 */
final class Http2Windows {

    static final int STREAM_WINDOW = 4 << 20;
    static final int CONNECTION_WINDOW = 1 << 30;

    private Http2Windows() {
    }

    /** {@code client} with these windows on its HTTP/2 connections; HTTP/1.1 connections are left as they are. */
    static HttpClient grant(HttpClient client) {
        return client.http2Settings(h2 -> h2.initialWindowSize(STREAM_WINDOW)).doOnConnected(Http2Windows::widen);
    }

    /**
     * Widens the connection's window, once: called with the connection (Reactor Netty's HTTP/2 pool signals
     * it connected) or with one of its streams, it finds the window at the default the first time only.
     */
    private static void widen(Connection connected) {
        Channel channel = connected.channel();
        Channel connection = channel.parent() == null ? channel : channel.parent();
        Http2FrameCodec codec = connection.pipeline().get(Http2FrameCodec.class);
        if (codec == null) {
            return;
        }
        Http2Connection h2 = codec.connection();
        Http2Stream connectionStream = h2.connectionStream();
        Http2LocalFlowController flow = h2.local().flowController();
        int missing = CONNECTION_WINDOW - flow.initialWindowSize(connectionStream);
        if (missing > 0) {
            try {
                flow.incrementWindowSize(connectionStream, missing);
            } catch (Http2Exception e) {
                // only for a window past 2^31 - 1, which CONNECTION_WINDOW cannot reach from HTTP/2's initial window
                throw new IllegalStateException(e);
            }
        }
    }
}
