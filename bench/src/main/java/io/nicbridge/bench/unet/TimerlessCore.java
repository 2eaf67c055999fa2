package io.nicbridge.bench.unet;

import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.core.Guarantee;
import io.nicbridge.protocols.core.ProtocolCore;
import java.util.Set;

/**
 * A core with no timers, no delivery guarantees and no buffers of its own - raw U-Net and UDP in the virtual-time
 * experiments ({@link UnetWorld}): only {@link #onFrame} does anything; what the runner asks of a reliable protocol
 * has its neutral answer here once.
 */
abstract class TimerlessCore implements ProtocolCore {
    @Override
    public void onWritable(Link from) {
    }

    @Override
    public void onTimer() {
    }

    @Override
    public long nextDeadline() {
        return NO_DEADLINE;
    }

    @Override
    public Set<Guarantee> guarantees() {
        return Set.of();
    }

    @Override
    public int bufferedMessages() {
        return 0;
    }

    @Override
    public int bufferCapacity() {
        return 0;
    }
}
