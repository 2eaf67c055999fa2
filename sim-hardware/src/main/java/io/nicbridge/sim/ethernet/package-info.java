/**
 * Ethernet as the emulated cards see it: the {@link io.nicbridge.sim.ethernet.EthernetWire} contract
 * (stations attach with a {@link io.nicbridge.sim.ethernet.FrameSink} and transmit through a
 * {@link io.nicbridge.sim.ethernet.WirePort}) and its implementation
 * {@link io.nicbridge.sim.ethernet.EthernetSegment}, a hub that delivers at once in real time and
 * models 100 Mb/s serialization, preamble, inter-frame gap and propagation in virtual time, with the
 * fault layer ({@link io.nicbridge.sim.fault}) and pcap capture ({@link io.nicbridge.sim.capture})
 * built in.
 */
package io.nicbridge.sim.ethernet;
