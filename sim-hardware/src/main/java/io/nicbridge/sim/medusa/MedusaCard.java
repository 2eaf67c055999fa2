package io.nicbridge.sim.medusa;

import io.nicbridge.bridge.driver.medusa.MedusaPio;
import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.card.EmulatedCard;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * An emulated Medusa as the bridge's {@link Card}: the 2 MiB window ({@link #registers()}), the interrupt line,
 * and - for what only this card has - {@link #bufferRam()}, the PIO path into buffer RAM that feeds the checksum
 * accumulator, and the {@link #model()} itself.
 *
 * <p>The Medusa has no bus-master DMA (the host copies by PIO), so {@link #dma()} is an empty {@link DmaSpace}
 * the card never uses: a driver has nothing to register there.
 */
public final class MedusaCard extends EmulatedCard implements MedusaPio {
    private final MedusaModel model;

    /**
     * @param release what else closing the card frees (e.g. the testbed it was opened on); runs once, after the
     *                model is closed
     */
    public MedusaCard(DeviceSpec spec, MedusaModel model, Runnable release) {
        Objects.requireNonNull(model, "model");
        super(spec, model.name(), model.registers(), new DmaSpace(model.name() + ".nodma"), model.interrupt(),
                release);
        this.model = model;
    }

    /** PIO into buffer RAM with the checksum accumulator (raw segment access bypasses it). */
    public MedusaBufferRam bufferRam() {
        return model.bufferRam();
    }

    public MedusaModel model() {
        return model;
    }

    @Override
    protected void closeModel() {
        model.close();
    }

    /** {@inheritDoc} Here: {@code model().hardwareReset()}. */
    @Override
    public void hardwareReset() {
        model.hardwareReset();
    }

    @Override
    public String toString() {
        return "MedusaCard[" + name() + ", " + spec() + "]";
    }

    // The card offers its PIO path directly, so MedusaDriver.open(card, config) finds it.

    @Override
    public void copyToCard(MemorySegment src, long srcOffset, int windowOffset, int length) {
        bufferRam().copyToCard(src, srcOffset, windowOffset, length);
    }

    @Override
    public void copyFromCard(int windowOffset, MemorySegment dst, long dstOffset, int length) {
        bufferRam().copyFromCard(windowOffset, dst, dstOffset, length);
    }

    @Override
    public void putByte(int windowOffset, byte value) {
        bufferRam().putByte(windowOffset, value);
    }
}
