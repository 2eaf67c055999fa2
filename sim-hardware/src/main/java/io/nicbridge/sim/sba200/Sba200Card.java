package io.nicbridge.sim.sba200;

import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.card.EmulatedCard;
import java.util.Objects;

/**
 * An emulated SBA-200 as the bridge's {@link Card}: {@link #registers()} is the 256 KiB board-RAM window (the
 * kernel's view: UG block, command queue, VCI table, every endpoint page), {@link #bcr()} the Board Control
 * Register, plus the DMA space and the SBus interrupt line. Exactly one
 * {@link io.nicbridge.bridge.driver.unet.UnetKernelDriver} drives it (the one its {@link Sba200Network} opened); processes
 * never get this object: they get a {@link io.nicbridge.bridge.driver.unet.UnetEndpoint} from that driver.
 */
public final class Sba200Card extends EmulatedCard {
    private final Sba200Model model;
    private final int port;

    /**
     * @param port    the ATM switch port the card's fiber pair is plugged into
     * @param release what else closing the card frees; runs once, after the model is closed
     */
    public Sba200Card(DeviceSpec spec, Sba200Model model, int port, Runnable release) {
        Objects.requireNonNull(model, "model");
        super(spec, model.name(), model.ram(), model.dma(), model.interrupt(), release);
        this.model = model;
        this.port = port;
    }

    /** The Board Control Register (its own 4-byte range). */
    public Registers bcr() {
        return model.bcr();
    }

    public Sba200Model model() {
        return model;
    }

    /** The switch port this card is connected to. */
    public int port() {
        return port;
    }

    @Override
    protected void failOtherWindows(CardFailedException failure) {
        model.bcr().fail(failure);
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
        return "Sba200Card[" + name() + ", port " + port + "]";
    }
}
