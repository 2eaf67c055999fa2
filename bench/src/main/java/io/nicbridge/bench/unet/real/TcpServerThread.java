package io.nicbridge.bench.unet.real;

import io.nicbridge.bench.unet.real.UnetIpShimPair.Node;
import io.nicbridge.protocols.ip.tcp.TcpConnection;
import io.nicbridge.protocols.ip.tcp.TcpHandler;

/**
 * A far-end thread that listens on a TCP port of its node and, once node A's connection is established, serves it
 * after every step ({@link #serve}): the U-Net TCP echo and sink.
 */
abstract class TcpServerThread extends NodeThread implements TcpHandler {
    private final int port;
    private TcpConnection connection;

    TcpServerThread(Node node, String name, int port) {
        super(node, name);
        this.port = port;
    }

    @Override
    final void setUp() {
        node.tcp.listen(port, this);
    }

    @Override
    public final void onEstablished(TcpConnection c, long nowNanos) {
        connection = c;
    }

    @Override
    final int work() {
        return connection == null ? 0 : serve(connection);
    }

    /** @return how much it did (0: nothing, the node may wait) */
    abstract int serve(TcpConnection c);
}
