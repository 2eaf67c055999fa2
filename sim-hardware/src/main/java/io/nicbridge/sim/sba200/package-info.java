/**
 * The emulated Fore SBA-200 with Cornell's U-Net firmware (docs/hardware-facts.md B.4, contract
 * {@code sba200_unet.h}): the card side only. The host side - kernel driver and process endpoints - is the
 * bridge's ({@code io.nicbridge.bridge.driver.unet}), the same code that drives the card over the C shim.
 *
 * <ul>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Model}: board RAM, BCR, the i960 firmware loop (kernel commands, AAL5
 *       segmentation and reassembly, VCI demux, inline single-cell receive, upcalls) as a
 *       {@link io.nicbridge.sim.engine.DeviceModel} - the shell (register hooks, ingress FIFO, timers, kicks) around
 *       {@code Sba200Firmware}, the single-threaded firmware core, which reaches host memory only through the
 *       card's {@link io.nicbridge.bridge.memory.DmaView} accesses and reports every state change to a
 *       {@link io.nicbridge.sim.sba200.Sba200Trace};</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Card}: the model as the bridge's
 *       {@link io.nicbridge.bridge.spi.Card};</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Network}: switch + cards on one engine, one bridge
 *       {@link io.nicbridge.bridge.driver.unet.UnetKernelDriver} per card (the only writer of its command queue), and the
 *       network's {@link io.nicbridge.bridge.driver.unet.UnetSignalling} (with {@link io.nicbridge.sim.atm.AtmNetworkService}
 *       the only path by which channels - VCI pairs - are set up);</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Timing}: the virtual-time cost model.</li>
 * </ul>
 */
package io.nicbridge.sim.sba200;
