package io.nicbridge.sim.dec21140;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An emulated 21140 as the bridge's {@link Card}: the model's CSR window, DMA space and interrupt line, plus the
 * model itself for what only an emulated card has (its counters, its timing model, its SROM image).
 */
public final class Dec21140Card implements Card {
    private final DeviceSpec spec;
    private final Dec21140Model model;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param spec    the spec the card was opened from
     * @param model   the attached model
     * @param release what else closing the card frees (e.g. the testbed it was opened on); runs once, after the
     *                model is closed
     */
    public Dec21140Card(DeviceSpec spec, Dec21140Model model, Runnable release) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.model = Objects.requireNonNull(model, "model");
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

    @Override
    public Registers registers() {
        return model.registers();
    }

    @Override
    public DmaSpace dma() {
        return model.dma();
    }

    @Override
    public InterruptLine interrupt() {
        return model.interrupt();
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
    public void close() {
        if (closed.compareAndSet(false, true)) {
            model.close();
            release.run();
        }
    }

    @Override
    public String toString() {
        return "Dec21140Card[" + name() + ", " + spec + "]";
    }
}
