package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An emulated SBA-200 as the bridge's {@link Card}: {@link #registers()} is the 256 KiB board-RAM window (the
 * kernel's view: UG block, command queue, VCI table, every endpoint page), {@link #bcr()} the Board Control
 * Register, plus the DMA space and the SBus interrupt line. Processes never get this object: they get an
 * {@link Sba200Endpoint} from the {@link UnetKernel}.
 */
public final class Sba200Card implements Card {
    private final DeviceSpec spec;
    private final Sba200Model model;
    private final int port;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param port    the ATM switch port the card's fiber pair is plugged into
     * @param release what else closing the card frees; runs once, after the model is closed
     */
    public Sba200Card(DeviceSpec spec, Sba200Model model, int port, Runnable release) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.model = Objects.requireNonNull(model, "model");
        this.port = port;
        this.release = Objects.requireNonNull(release, "release");
    }

    @Override
    public String name() {
        return model.name();
    }

    @Override
    public DeviceSpec spec() {
        return spec;
    }

    /** The board-RAM window (kernel view). */
    @Override
    public Registers registers() {
        return model.ram();
    }

    /** The Board Control Register (its own 4-byte range). */
    public Registers bcr() {
        return model.bcr();
    }

    @Override
    public DmaSpace dma() {
        return model.dma();
    }

    @Override
    public InterruptLine interrupt() {
        return model.interrupt();
    }

    public Sba200Model model() {
        return model;
    }

    /** The switch port this card is connected to. */
    public int port() {
        return port;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            model.close();
            release.run();
        }
    }

    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public String toString() {
        return "Sba200Card[" + name() + ", port " + port + "]";
    }
}
