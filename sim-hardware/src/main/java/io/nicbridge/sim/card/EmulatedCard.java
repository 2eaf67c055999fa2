package io.nicbridge.sim.card;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.Registers;
import io.nicbridge.bridge.spi.Card;
import io.nicbridge.bridge.spi.CardFailedException;
import io.nicbridge.bridge.spi.DeviceSpec;
import io.nicbridge.bridge.spi.InterruptLine;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every emulated {@link Card} has in common: the spec it was opened from, the model's name, register
 * window, DMA space and interrupt line, and a close that runs once - first the model's own close, then the
 * release callback (what else closing the card frees, e.g. the testbed it was opened on).
 *
 * <p>A subclass passes its model's parts to the constructor and implements {@link #closeModel()}; it keeps only
 * what is its own (the typed model, counters, PIO path, switch port, ...). The parts are captured once because a
 * model's window, DMA space and line are fixed for its lifetime.
 *
 * <p>When the model can do no more work (its engine thread died, see {@code ThreadedEngine}), {@link #fail} fails the
 * card where every driver meets it: its interrupt line and its register window, which from then on throw
 * {@link CardFailedException} with the model's exception as the cause.
 */
public abstract class EmulatedCard implements Card {
    private final DeviceSpec spec;
    private final String name;
    private final Registers registers;
    private final DmaSpace dma;
    private final InterruptLine interrupt;
    private final Runnable release;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param spec      the spec the card was opened from
     * @param name      the model's name
     * @param registers the window a driver maps ({@link #registers()})
     * @param dma       the host memory the card may reach ({@link #dma()})
     * @param interrupt the card's interrupt line
     * @param release   what else closing the card frees; runs once, after the model is closed
     */
    protected EmulatedCard(
            DeviceSpec spec,
            String name,
            Registers registers,
            DmaSpace dma,
            InterruptLine interrupt,
            Runnable release) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.name = Objects.requireNonNull(name, "name");
        this.registers = Objects.requireNonNull(registers, "registers");
        this.dma = Objects.requireNonNull(dma, "dma");
        this.interrupt = Objects.requireNonNull(interrupt, "interrupt");
        this.release = Objects.requireNonNull(release, "release");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final DeviceSpec spec() {
        return spec;
    }

    @Override
    public final Registers registers() {
        return registers;
    }

    @Override
    public final DmaSpace dma() {
        return dma;
    }

    @Override
    public final InterruptLine interrupt() {
        return interrupt;
    }

    /**
     * The model stopped on {@code cause}: waits on the interrupt line and host register accesses throw
     * {@link CardFailedException} from now on. The first failure wins. Logging is the caller's (the engine logs it).
     */
    public final void fail(Throwable cause) {
        CardFailedException failure = new CardFailedException(name, cause);
        registers.fail(failure);
        failOtherWindows(failure);
        interrupt.fail(failure);
    }

    /**
     * Fails the card's register windows other than {@link #registers()} (e.g. the SBA-200's Board Control
     * Register), so every host-side access of a failed card throws. Cards with one window have nothing to do.
     */
    protected void failOtherWindows(CardFailedException failure) {
    }

    /** @return the card's failure, or null while it works */
    public final CardFailedException failure() {
        return interrupt.failure();
    }

    /**
     * Closes the model, then runs the release callback; later calls do nothing. From then on the card's line and
     * registers throw {@link CardFailedException} (cause: the close), so a driver left open fails loudly.
     */
    @Override
    public final void close() {
        // compareAndSet so two racing closers cannot both free the model or run the release twice.
        if (closed.compareAndSet(false, true)) {
            // A driver still waiting on the line wakes and throws; register accesses throw a clear message instead of
            // FFM's "already closed" once the model frees its window.
            fail(new IllegalStateException(name + " was closed"));
            closeModel();
            release.run();
        }
    }

    /** Whether {@link #close()} has run. */
    public final boolean isClosed() {
        return closed.get();
    }

    /**
     * The card-reset fault a simulation injects: the card loses its state as a bus reset, a power glitch or a
     * firmware crash would leave it (each model says exactly what its reset clears), without its driver asking. The
     * driver must find out from the card itself (registers, a transmission that never completes, a heartbeat that
     * stops) and bring it back. Any thread; in virtual time call it from the world's thread. A no-op once closed.
     */
    public abstract void hardwareReset();

    /** Stops the model; called once, from the first {@link #close()}, before the release callback. */
    protected abstract void closeModel();
}
