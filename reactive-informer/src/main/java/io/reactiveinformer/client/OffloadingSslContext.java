package io.reactiveinformer.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

/**
 * A client {@link SslContext} whose handlers run the TLS handshake's delegated tasks on {@code executor}
 * instead of the connection's event loop.
 *
 * <p>Why: the JDK's {@code SSLEngine} does the handshake's expensive steps (verifying the server's
 * certificate chain, signing with the client key, key agreement) as delegated tasks, and Netty's
 * {@link SslHandler} runs them inline on the event loop unless it is built with an executor. Reactor Netty
 * builds the handler through {@link SslContext#newHandler(ByteBufAllocator, String, int)} and has no
 * option for one, so this context supplies it there. Every connection handshakes once (they are pooled),
 * but after an API server restart every connection does so at once: on two loaded cores one handshake
 * held a loop shared with every watch on it for 303 ms. The handler resumes on the event loop when a task
 * completes; everything else delegates to the wrapped context.
 */
final class OffloadingSslContext extends SslContext {

    private final SslContext delegate;
    private final Executor executor;

    OffloadingSslContext(SslContext delegate, Executor executor) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.executor = Objects.requireNonNull(executor, "executor");
        if (!delegate.isClient()) {
            throw new IllegalArgumentException("a client context is expected");
        }
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls) {
        return delegate.newHandler(alloc, executor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls) {
        return delegate.newHandler(alloc, peerHost, peerPort, executor);
    }

    @Override
    public boolean isClient() {
        return true;
    }

    @Override
    public List<String> cipherSuites() {
        return delegate.cipherSuites();
    }

    @Override
    public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
        return delegate.applicationProtocolNegotiator();
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc) {
        return delegate.newEngine(alloc);
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
        return delegate.newEngine(alloc, peerHost, peerPort);
    }

    @Override
    public SSLSessionContext sessionContext() {
        return delegate.sessionContext();
    }
}
