/**
 * The emulated Fore SBA-200 with Cornell's U-Net firmware (docs/hardware-facts.md B.4, contract
 * {@code sba200_unet.h}).
 *
 * <ul>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Model}: board RAM, BCR, the i960 firmware loop (kernel commands, AAL5
 *       segmentation and reassembly, VCI demux, inline single-cell receive, upcalls) as a
 *       {@link io.nicbridge.sim.engine.DeviceModel};</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Card}: the model as the bridge's
 *       {@link io.nicbridge.bridge.spi.Card};</li>
 *   <li>{@link io.nicbridge.sim.sba200.UnetKernel}: the kernel driver, the only writer of the command queue, and
 *       with {@link io.nicbridge.sim.atm.AtmNetworkService} the only path by which channels (VCI pairs) are set
 *       up;</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Endpoint}: what a process owns (its page, segment, receive queue);</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Network}: switch + cards + kernels on one engine;</li>
 *   <li>{@link io.nicbridge.sim.sba200.Sba200Timing}: the virtual-time cost model.</li>
 * </ul>
 */
package io.nicbridge.sim.sba200;
