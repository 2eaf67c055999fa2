/**
 * The host cost model: in virtual time every simulated node is a CPU, and the work its runner, protocol core and
 * link framing do is charged to that node's {@link io.nicbridge.bridge.cost.HostCpu} from a named
 * {@link io.nicbridge.bridge.cost.CostTable} ({@code zero}, or {@code measured} by {@code ./nic calibrate} on a named
 * machine). While a node's CPU is busy, its next handler waits, and its arrivals queue in the card's (or medium's)
 * own receive buffers, whose limits and drop counters apply.
 *
 * <h2>Who charges what</h2>
 * Each piece of work is charged once, by the code that does it, at the point it does it, to the CPU it was given at
 * setup: one {@code HostCpu} per node, shared by that node's runner, core and link. The runner builds the core with
 * it and hands it to the link ({@link io.nicbridge.bridge.link.Link#hostCpu}); the simulated media (the in-memory
 * medium, the fabric) take their nodes' CPUs at construction instead. A link never given one charges nothing.
 * <table>
 *   <caption>charging rules</caption>
 *   <tr><th>who</th><th>item</th><th>when</th></tr>
 *   <tr><td>runner</td><td>{@code HANDLER_DISPATCH}</td><td>once per event handed to the core (a link poll, a
 *       timer expiry)</td></tr>
 *   <tr><td>runner</td><td>{@code TIMER_ARM} / {@code TIMER_CANCEL}</td><td>each time it (re)arms or cancels the
 *       core's deadline timer (an unchanged deadline costs nothing)</td></tr>
 *   <tr><td>runner</td><td>{@code INTERRUPT}</td><td>once per readiness notification that wakes the node (further
 *       notifications before the node polls are coalesced, as a card's interrupt line stays asserted)</td></tr>
 *   <tr><td>core</td><td>{@code COPY}, {@code CHECKSUM}</td><td>per byte it copies or checksums itself</td></tr>
 *   <tr><td>framing</td><td>{@code DESCRIPTOR_POST}</td><td>per descriptor handed to the card: a TX commit, an RX
 *       buffer given back on release</td></tr>
 *   <tr><td>framing</td><td>{@code DESCRIPTOR_RECLAIM}</td><td>per descriptor taken back: a TX buffer reused by a
 *       claim, an RX frame handed up by poll</td></tr>
 *   <tr><td>framing</td><td>{@code TABLE_LOOKUP}</td><td>per address demultiplexed (Ethernet SA or FDDI station to
 *       peer, U-Net channel tag to peer)</td></tr>
 *   <tr><td>framing</td><td>{@code COPY}</td><td>per byte the host copies (a header written, a U-Net inline send's
 *       bytes copied into its descriptor); bytes the card moves by DMA cost the host nothing</td></tr>
 *   <tr><td>framing</td><td>{@code PIO_WORD}</td><td>per 32-bit access through a card window by programmed I/O
 *       (the Medusa: a send copies {@code ceil(bytes / 4)} words, plus the 2 accesses that clear and read the card's
 *       checksum register; a received frame read in place in buffer RAM crosses the bus once,
 *       {@code ceil(bytes / 4)} words). The Medusa's checksum unit sums the halfwords as they cross the bus, so a
 *       checksum obtained during a PIO copy costs the host no {@code CHECKSUM} pass: that is the careful protocol's
 *       gain. On receive the card sums each frame as it stores it (RXCK, {@code MedusaReceiveChecksum}): reading it
 *       is one more {@code PIO_WORD}, and the core pays {@code CHECKSUM} only for the bytes before RXCK_START</td></tr>
 *   <tr><td>driver</td><td>{@code INTERRUPT}</td><td>only for an interrupt it services itself outside a runner's
 *       readiness path (an ISR of its own)</td></tr>
 *   <tr><td>kernel (U-Net's emulated endpoints)</td><td>{@code INTERRUPT}, {@code TABLE_LOOKUP}, {@code COPY},
 *       {@code DESCRIPTOR_POST}</td><td>one {@code INTERRUPT} per system call (a trap is a kernel entry and exit,
 *       priced as the measured interrupt path: no separate measurement), per send one {@code TABLE_LOOKUP}, the
 *       bytes it copies and one {@code DESCRIPTOR_POST}; per message it demultiplexes one {@code TABLE_LOOKUP}, the
 *       payload bytes and one {@code DESCRIPTOR_POST} ({@code EmulatedEndpointMux})</td></tr>
 * </table>
 * A framing that sends stamps the frame with {@link io.nicbridge.bridge.cost.HostCpu#now()} (the time its CPU has
 * reached), not the scheduler's clock, so host work before the send delays the frame: the simulated media compute
 * the frame's departure from it, and a card framing rings the card's doorbell then
 * ({@link io.nicbridge.bridge.link.CpuPacedTransmits}). A receive buffer given back is the card's at once (not
 * paced). In real time the same calls only count; the real CPU pays.
 */
package io.nicbridge.bridge.cost;
