/**
 * The U-Net user-level network interface (von Eicken, Basu, Buch, Vogels, SOSP'95) over the emulated
 * "U-Net on Fore SBA-200" device contract ({@code sba200_unet.h}, docs/hardware-facts.md B.4).
 *
 * <pre>
 *   process                                   kernel                           card (i960 firmware)
 *   UnetEndpoint ------------------------------------------------------------&gt; send queue, free queue
 *     own endpoint page (4 KiB of board RAM)                                    (board RAM, polled by the i960)
 *     own communication segment (DMA-mapped)  UnetKernelDriver ------------&gt; command queue (kernel only)
 *     own receive queue (host memory)           EP_CREATE / EP_DESTROY          VCI demux table
 *   &lt;------------------------------------------ CH_OPEN / CH_CLOSE / EP_UPCALL   receive queue by DMA
 *     poll / await / upcall                     GET_STATS / NOP                 interrupt line -&gt; upcalls
 * </pre>
 *
 * <ul>
 *   <li>{@link io.nicbridge.bridge.driver.unet.UnetKernelDriver}: the privileged half; the only path to channels and to the
 *       card's DMA space, and the only host-side U-Net driver in the project - the emulated SBA-200s
 *       (sim-hardware) and the C shim's card are driven by it alike, one driver per card.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.UnetSignalling}: the network's part of channel set-up (paths and tags), which
 *       a network implements and {@link io.nicbridge.bridge.driver.unet.UnetKernelDriver#connect} uses.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.UnetEndpoint}: the process's half - base-level U-Net (send from the segment,
 *       receive into free buffers, one copy by the application), the single-cell inline optimisation, polling,
 *       blocking and upcall reception, cheap critical sections.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.DirectAccess}: direct-access U-Net's "sender names the destination offset",
 *       emulated in the receiving library with a bounded window (the SBA-200 cannot do it in the NI).</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.Endpoint}: the endpoint API a process programs against, so one program
 *       runs unchanged on a regular endpoint ({@code UnetEndpoint}) or a kernel-emulated one.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.EmulatedEndpointMux} and
 *       {@link io.nicbridge.bridge.driver.unet.EmulatedEndpoint}: kernel-emulated endpoints (paper 3.5), each with its
 *       own segment, queues and kernel-opened channels, many multiplexed over one real endpoint by a 16-bit tag; the
 *       kernel's crossings and copies charged to the host's CPU.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.UnetFramePort}: the card-independent
 *       {@link io.nicbridge.bridge.port.FramePort} over one endpoint and channel.</li>
 *   <li>{@link io.nicbridge.bridge.driver.unet.UnetLink}: the U-Net framing of the protocols'
 *       {@link io.nicbridge.bridge.link.Link} - peer i = the channel to peer i, no header, inline or buffered sends
 *       chosen at commit, in-place receive from the receive queue, readiness from the endpoint's non-consuming
 *       signal.</li>
 * </ul>
 *
 * <p>Errors: data-path problems are statuses the card writes ({@code TX_STATUS_*} on send completions,
 * {@code RX_ERR_*} on received descriptors, drop counters in the EPCB and the UG block) and the API returns them;
 * kernel commands that the firmware rejects throw {@link io.nicbridge.bridge.driver.unet.UnetCommandException} naming the
 * firmware's error code; queue-full is back-pressure ({@code false} / {@code -1} / {@code NONE}). Misuse of the API
 * (a descriptor that is not the held one, out-of-range arguments, calls after destruction) throws
 * {@link java.lang.IllegalArgumentException} / {@link java.lang.IllegalStateException} before any memory or counter
 * is touched; {@code UnetMisuseFuzzTest} drives random call sequences through both classes to hold them to it.
 */
package io.nicbridge.bridge.driver.unet;
