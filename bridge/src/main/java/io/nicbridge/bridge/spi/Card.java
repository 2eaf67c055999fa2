package io.nicbridge.bridge.spi;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;

/**
 * A live card, emulated or real: the same three things as on real hardware.
 * <ol>
 *   <li>a register window ({@link #registers()}) through which every access with side effects goes;</li>
 *   <li>a DMA space ({@link #dma()}): the host memory the card may reach, by bus address;</li>
 *   <li>an interrupt line ({@link #interrupt()}), high while {@code (status & mask) != 0}.</li>
 * </ol>
 * Drivers are written against this interface only, so they run unchanged on every backend.
 */
public interface Card extends AutoCloseable {
    /** @return e.g. {@code "dec21140#0"} */
    String name();

    /** @return the spec this card was opened from */
    DeviceSpec spec();

    Registers registers();

    DmaSpace dma();

    InterruptLine interrupt();

    /** Stops the card and releases its resources. Idempotent. */
    @Override
    void close();
}
