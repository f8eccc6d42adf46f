/*
 * Copyright 2026 The eosink authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.eosink.testing;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP proxy on the loopback interface, between a client (the sink) and a server (PostgreSQL), that
 * fails the network on command: it cuts connections, or stalls them so that nothing moves and the
 * client's reads get no reply and its writes, once the buffers are full, block.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.to(postgres.jdbcUrl())) {
 *     String url = proxy.jdbcUrl(postgres.jdbcUrl());   // the same URL, through the proxy
 *     ... proxy.cutAll(); proxy.stall(); proxy.resume(); proxy.stallFor(Duration.ofSeconds(5));
 *     ... proxy.cutWhenClientSends("COMMIT PREPARED");
 *     ... proxy.holdWhenClientSends("XA PREPARE"); ...; proxy.releaseHeld();
 * }
 * }</pre>
 *
 * <p>Each connection is two threads, one per direction, each copying what it reads to the other side.
 * Thread-safe: every method may be called from any thread (a test, a fault hook inside a Flink task).
 * The proxy only listens on 127.0.0.1, and its receive buffers are small so that a stall fills them
 * within a few hundred kilobytes.
 */
public final class TcpProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

    /** Receive buffer of the proxy's sockets: small, so that a stall blocks the sender soon. */
    private static final int RECEIVE_BUFFER = 64 * 1024;

    private static final Pattern JDBC_HOST_PORT =
            Pattern.compile("^(jdbc:(?:postgresql|mariadb|mysql|firebird|firebirdsql)://)([^/?]+)(.*)$");

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger cuts = new AtomicInteger();
    /** Armed by {@link #cutWhenClientSends}: the bytes whose sending dooms a connection, once. */
    private final AtomicReference<byte[]> cutOnRequest = new AtomicReference<>();
    /** Armed by {@link #stallWhenClientSends}: the bytes whose sending stalls the network, once, and for how long. */
    private final AtomicReference<StallOnRequest> stallOnRequest = new AtomicReference<>();
    /** Armed by {@link #holdWhenClientSends}: the bytes that are held back from the server, once. */
    private final AtomicReference<byte[]> holdOnRequest = new AtomicReference<>();

    private final AtomicInteger holds = new AtomicInteger();
    private boolean heldReleased; // guarded by gate
    private final Object gate = new Object();
    private boolean stalled; // guarded by gate
    /** Counts calls of stall, stallFor and resume: a timed resume acts only if none came after its stall. */
    private long stallsAndResumes; // guarded by gate

    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket();
        listener.setReceiveBufferSize(RECEIVE_BUFFER); // inherited by accepted sockets
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + port() + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on 127.0.0.1 (a free port) to {@code host:port}. */
    public static TcpProxy to(String host, int port) throws IOException {
        return new TcpProxy(new InetSocketAddress(host, port));
    }

    /** A proxy to the host and port of a {@code jdbc:postgresql://host:port/...} (or mariadb, mysql) URL. */
    public static TcpProxy to(String jdbcUrl) throws IOException {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        return to(
                uri.getHost(),
                uri.getPort() != -1 ? uri.getPort() : jdbcUrl.startsWith("jdbc:postgresql:") ? 5432 : 3306);
    }

    /** The port the proxy listens on (127.0.0.1). */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code jdbcUrl} with its host and port replaced by the proxy's. */
    public String jdbcUrl(String jdbcUrl) {
        Matcher m = JDBC_HOST_PORT.matcher(jdbcUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a jdbc:postgresql://host:port/... (or mariadb, mysql) URL");
        }
        return m.group(1) + "127.0.0.1:" + port() + m.group(3);
    }

    /**
     * Resets every open connection (RST to both client and server, as a broken network path or a
     * dying firewall would). New connections are accepted afterwards as before.
     */
    public void cutAll() {
        for (Link link : links) {
            link.cut();
        }
    }

    /**
     * Stops forwarding in both directions, on open and new connections alike, keeping every socket
     * open: the client's reads get no reply, and its writes block once the buffers in between are
     * full. {@link #resume()} forwards everything held back, nothing is lost.
     */
    public void stall() {
        synchronized (gate) {
            stalled = true;
            stallsAndResumes++;
        }
        LOG.info("{}: stalled", this);
    }

    /**
     * {@link #stall()} now and {@link #resume()} after {@code duration}, without blocking the caller
     * (which may be a fault hook on a task thread that must go on to run into the stall). The timed
     * resume does nothing once the proxy was stalled or resumed again meanwhile: it never ends a later
     * stall, of this test or the next.
     */
    public void stallFor(Duration duration) {
        long stall;
        synchronized (gate) {
            stalled = true;
            stall = ++stallsAndResumes;
        }
        LOG.info("{}: stalled for {}", this, duration);
        CompletableFuture.runAsync(
                () -> {
                    synchronized (gate) {
                        if (stallsAndResumes != stall) {
                            return;
                        }
                    }
                    resume();
                },
                CompletableFuture.delayedExecutor(duration.toMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * Once: when a client sends bytes containing {@code request} (ASCII, within one read), {@link
     * #stallFor} {@code duration} before they go on, so that the stall catches that very request
     * whatever the client did before it (a pool validating its connection, say) and when.
     */
    public void stallWhenClientSends(String request, Duration duration) {
        stallOnRequest.set(new StallOnRequest(request.getBytes(StandardCharsets.US_ASCII), duration));
    }

    /** Forwards again after {@link #stall()}. */
    public void resume() {
        synchronized (gate) {
            stalled = false;
            stallsAndResumes++;
            gate.notifyAll();
        }
        LOG.info("{}: resumed", this);
    }

    /** Whether the proxy holds every byte back now (between a stall and its resume). */
    public boolean isStalled() {
        synchronized (gate) {
            return stalled;
        }
    }

    /**
     * Once: the first connection on which the client sends bytes containing {@code request} (ASCII,
     * within one read, e.g. a short SQL statement, which the driver sends in one piece) is cut right
     * after the server answers it, before the answer reaches the client. The server did what was
     * asked; the client cannot know: an outcome-unknown failure.
     */
    public void cutWhenClientSends(String request) {
        cutOnRequest.set(request.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Once: the first connection on which the client sends bytes containing {@code request} (ASCII,
     * within one read) has those bytes held back, and its client side is reset at once, as if the
     * client's machine died right after sending them; the server side stays open and silent, with
     * the request not yet delivered, until {@link #releaseHeld()} delivers it and then closes the
     * server side in order, as the dead client's socket would once the server read the request. So
     * the server's session outlives its client, and runs its last request after it: what a server
     * busy with a request (an XA PREPARE, say) when its client died does.
     */
    public void holdWhenClientSends(String request) {
        synchronized (gate) {
            heldReleased = false;
        }
        holdOnRequest.set(request.getBytes(StandardCharsets.US_ASCII));
    }

    /** Delivers the request held by {@link #holdWhenClientSends} (now or, if none is held yet, when it is). */
    public void releaseHeld() {
        synchronized (gate) {
            heldReleased = true;
            gate.notifyAll();
        }
        LOG.info("{}: released the held request", this);
    }

    /** Requests held so far by {@link #holdWhenClientSends}. */
    public int holds() {
        return holds.get();
    }

    /** Connections accepted so far. */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /** Connections currently forwarded. */
    public int openConnections() {
        return links.size();
    }

    /** Connections cut so far, by {@link #cutAll()} or {@link #cutWhenClientSends}. */
    public int cuts() {
        return cuts.get();
    }

    /** Stops listening and cuts every connection. */
    @Override
    public void close() {
        closed = true;
        resume(); // release threads waiting at the gate, so they see the cut and end
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the listener", e);
        }
        cutAll();
    }

    @Override
    public String toString() {
        return "TcpProxy{127.0.0.1:" + port() + " -> " + target.getHostString() + ":" + target.getPort() + "}";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("{}: accept failed, proxy stops", this, e);
                }
                return;
            }
            accepted.incrementAndGet();
            Socket server = new Socket();
            try {
                server.setReceiveBufferSize(RECEIVE_BUFFER);
                server.connect(target, 10_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
            } catch (IOException e) {
                LOG.info("{}: cannot reach the server: {}", this, e.toString());
                closeQuietly(client, true);
                closeQuietly(server, true);
                continue;
            }
            Link link = new Link(client, server, accepted.get());
            links.add(link);
            link.start();
        }
    }

    /** Waits while the proxy is stalled. */
    private void passGate() throws InterruptedException {
        synchronized (gate) {
            while (stalled && !closed) {
                gate.wait();
            }
        }
    }

    private static void closeQuietly(Socket socket, boolean reset) {
        try {
            if (reset && !socket.isClosed()) {
                socket.setSoLinger(true, 0); // close sends RST instead of FIN
            }
            socket.close();
        } catch (IOException e) {
            // already broken: nothing to close
        }
    }

    private static boolean contains(byte[] data, int length, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** What {@link #stallWhenClientSends} armed. */
    private static final class StallOnRequest {
        final byte[] request;
        final Duration duration;

        StallOnRequest(byte[] request, Duration duration) {
            this.request = request;
            this.duration = duration;
        }
    }

    /** One proxied connection: client socket, server socket, a pump per direction. */
    private final class Link {
        private final Socket client;
        private final Socket server;
        private final int number;
        private final AtomicInteger pumpsRunning = new AtomicInteger(2);
        /** Cut as soon as the server answers (set by the client pump before it forwards the request). */
        private volatile boolean doomed;

        private volatile boolean cut;

        Link(Socket client, Socket server, int number) {
            this.client = client;
            this.server = server;
            this.number = number;
        }

        void start() {
            pump(client, server, true);
            pump(server, client, false);
        }

        private void pump(Socket from, Socket to, boolean fromClient) {
            Thread thread = new Thread(
                    () -> {
                        byte[] buffer = new byte[16 * 1024];
                        try (InputStream in = from.getInputStream();
                                OutputStream out = to.getOutputStream()) {
                            int n;
                            while ((n = in.read(buffer)) != -1) {
                                if (fromClient) {
                                    StallOnRequest stall = stallOnRequest.get();
                                    if (stall != null
                                            && contains(buffer, n, stall.request)
                                            && stallOnRequest.compareAndSet(stall, null)) {
                                        LOG.info(
                                                "{}: connection {} sent the armed request; stalling",
                                                TcpProxy.this,
                                                number);
                                        stallFor(stall.duration);
                                    }
                                }
                                passGate();
                                if (cut) {
                                    return;
                                }
                                if (fromClient) {
                                    byte[] hold = holdOnRequest.get();
                                    if (hold != null
                                            && contains(buffer, n, hold)
                                            && holdOnRequest.compareAndSet(hold, null)) {
                                        holdThenDeliver(buffer, n, out);
                                        return;
                                    }
                                    byte[] request = cutOnRequest.get();
                                    if (request != null
                                            && contains(buffer, n, request)
                                            && cutOnRequest.compareAndSet(request, null)) {
                                        doomed = true;
                                        LOG.info(
                                                "{}: connection {} sent the armed request; cutting it when the server answers",
                                                TcpProxy.this,
                                                number);
                                    }
                                } else if (doomed) {
                                    cut();
                                    return;
                                }
                                out.write(buffer, 0, n);
                                out.flush();
                            }
                            // An orderly close on one side: pass it on, let the other direction finish.
                            passGate();
                            to.shutdownOutput();
                        } catch (IOException e) {
                            // cut by the proxy, or reset by a peer: end both directions
                            reset(false);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            reset(false);
                        } finally {
                            if (pumpsRunning.decrementAndGet() == 0) {
                                closeQuietly(client, false);
                                closeQuietly(server, false);
                                links.remove(this);
                            }
                        }
                    },
                    "tcp-proxy-" + port() + "-" + number + (fromClient ? "-c2s" : "-s2c"));
            thread.setDaemon(true);
            thread.start();
        }

        /**
         * For {@link #holdWhenClientSends}: resets the client, waits for {@link #releaseHeld()}, then
         * delivers the request and closes the server side in order (unless cut or closed meanwhile).
         */
        private void holdThenDeliver(byte[] request, int length, OutputStream toServer)
                throws IOException, InterruptedException {
            holds.incrementAndGet();
            LOG.info(
                    "{}: connection {} sent the armed request; holding it, and resetting the client",
                    TcpProxy.this,
                    number);
            closeQuietly(client, true);
            synchronized (gate) {
                while (!heldReleased && !closed && !cut) {
                    gate.wait(100);
                }
            }
            if (closed || cut) {
                return;
            }
            LOG.info(
                    "{}: connection {}: delivering the held request, then closing the server side",
                    TcpProxy.this,
                    number);
            toServer.write(request, 0, length);
            toServer.flush();
            server.shutdownOutput();
        }

        /** A cut the proxy was asked for: counted in {@link #cuts()}. */
        void cut() {
            reset(true);
        }

        private void reset(boolean counted) {
            synchronized (this) {
                if (cut) {
                    return;
                }
                cut = true;
            }
            if (counted) {
                cuts.incrementAndGet();
            }
            closeQuietly(client, true);
            closeQuietly(server, true);
            links.remove(this);
        }
    }
}
