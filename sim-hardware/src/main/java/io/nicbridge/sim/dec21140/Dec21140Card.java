package io.nicbridge.sim.dec21140;

import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.sim.card.EmulatedCard;
import java.util.Objects;

/**
 * An emulated 21140 as the bridge's {@link Card}: the model's CSR window, DMA space and interrupt line, plus the
 * model itself for what only an emulated card has (its counters, its timing model, its SROM image).
 */
public final class Dec21140Card extends EmulatedCard {
    private final Dec21140Model model;

    /**
     * @param spec    the spec the card was opened from
     * @param model   the attached model
     * @param release what else closing the card frees (e.g. the testbed it was opened on); runs once, after the
     *                model is closed
     */
    public Dec21140Card(DeviceSpec spec, Dec21140Model model, Runnable release) {
        Objects.requireNonNull(model, "model");
        super(spec, model.name(), model.registers(), model.dma(), model.interrupt(), release);
        this.model = model;
    }

    public Dec21140Model model() {
        return model;
    }

    public Dec21140Counters counters() {
        return model.counters();
    }

    /** The card delays in force (zero in real time); tools print {@link Dec21140Timing#describe()}. */
    public Dec21140Timing timing() {
        return model.timing();
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
        return "Dec21140Card[" + name() + ", " + spec() + "]";
    }
}
