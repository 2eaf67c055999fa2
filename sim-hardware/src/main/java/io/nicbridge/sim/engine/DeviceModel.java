package io.nicbridge.sim.engine;

/**
 * An emulated card's engine: the state machines that the real card's silicon or firmware runs
 * (the 21140's transmit and receive processes, the SBA-200's i960 loop, the Medusa's FIFO logic).
 *
 * <p>The {@link DeviceEngine} decides on which thread and when {@link #service()} runs; the model
 * asks for it through the {@link WorkSignal} it got when attached (a doorbell register write, a
 * frame arriving from the wire). {@code service()} is never called concurrently for one model, so
 * a model needs no locking of its own beyond what crosses into it from other threads (its ingress
 * frame FIFO, register hooks).
 */
public interface DeviceModel {
    String name();

    /**
     * Runs the work that is pending now.
     *
     * @return how much work was done (descriptors processed, frames moved); 0 when idle, which lets
     *     a threaded engine back off
     */
    int service();
}
