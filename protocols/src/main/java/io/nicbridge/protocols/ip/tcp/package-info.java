/**
 * TCP (RFC 9293) as a sans-I/O core above {@link io.nicbridge.protocols.ip.Ipv4Stack}: {@link
 * io.nicbridge.protocols.ip.tcp.Tcp} (segment checks, demultiplexing, listeners, RSTs for nobody) and {@link
 * io.nicbridge.protocols.ip.tcp.TcpConnection} (the state machine, RTO, congestion control, windows), sending through
 * a {@link io.nicbridge.protocols.ip.tcp.SegmentSink}. The U-Net paper's section 7 TCP: 1 ms timer granularity, no
 * delayed ACK by default, MSS from the MTU or 2048-byte segments over U-Net.
 */
package io.nicbridge.protocols.ip.tcp;
