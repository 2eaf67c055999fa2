/**
 * The emulated DEC 21140 "Tulip" Fast Ethernet controller (docs/hardware-facts.md section A).
 *
 * <ul>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Model}: the chip - CSR window with side-effect hooks, transmit and
 *       receive processes walking descriptor lists through the card's DMA space, address filter from setup frames,
 *       serial ROM, general-purpose timer, interrupt line. A {@link io.nicbridge.sim.engine.DeviceModel} driven by
 *       any engine and a {@link io.nicbridge.sim.ethernet.FrameSink} on any Ethernet wire.</li>
 *   <li>{@link io.nicbridge.sim.dec21140.Dec21140Card}: the model as the bridge's {@link
 * io.nicbridge.bridge.spi.Card}.</li>   <li>{@link io.nicbridge.sim.dec21140.Dec21140Timing}: the card's own delays
 * in virtual time (the model that tools       state next to the wire's arithmetic).</li>   <li>{@link
 * io.nicbridge.sim.dec21140.Dec21140Counters}: what the card moved and every way a frame was lost.</li>   <li>{@link
 * io.nicbridge.sim.dec21140.Dec21140Srom}, {@link io.nicbridge.sim.dec21140.Dec21140AddressFilter}: the       serial
 * ROM image and Microwire protocol; the perfect / hash / inverse / hash-only filter.</li>
 * </ul>
 * Cards are usually built by {@link io.nicbridge.sim.testbed.EmulatedTestbed} or opened from a spec such as
 * {@code emu:dec21140?mode=virtual&wire=lab} through {@link io.nicbridge.bridge.spi.Backends}.
 */
package io.nicbridge.sim.dec21140;
