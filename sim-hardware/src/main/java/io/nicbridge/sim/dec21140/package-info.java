/**
 * The emulated DEC 21140 "Tulip" Fast Ethernet controller (docs/hardware-facts.md section A).
 *
 * <ul>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Core} (package-private): the chip alone, as QEMU's tulip.c is -
 *       one handler per CSR, the transmit and receive processes walking descriptor lists through the card's DMA
 *       port, address filter, serial ROM, general-purpose timer. Single-threaded, no locks, time passed in.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Model}: the shell around the core - the CSR window and its hooks,
 *       the doorbells and timers as one pending-event word, the lock, the engine's kicks and inline re-entrancy.
 *       A {@link io.nicbridge.sim.engine.DeviceModel} driven by any engine and a
 *       {@link io.nicbridge.sim.ethernet.FrameSink} on any Ethernet wire.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Trace}: a hook on every transmit/receive state change (QEMU's
 *       trace points); {@link io.nicbridge.sim.dec21140.Dec21140Trace#NONE} when unused.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Card}: the model as the bridge's
 *       {@link io.nicbridge.bridge.spi.Card}.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Timing}: the card's own delays in virtual time (the model that
 *       tools state next to the wire's arithmetic).</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Counters}: what the card moved and every way a frame was lost.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Srom}, {@link io.nicbridge.sim.dec21140.Dec21140AddressFilter}: the
 *       serial ROM image and Microwire protocol; the perfect / hash / inverse / hash-only filter.</li>
 * </ul>
 * Cards are usually built by {@link io.nicbridge.sim.testbed.EmulatedTestbed} or opened from a spec such as
 * {@code emu:dec21140?mode=virtual&wire=lab} through {@link io.nicbridge.bridge.spi.Backends}.
 */
package io.nicbridge.sim.dec21140;
