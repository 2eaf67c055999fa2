/**
 * FDDI as the emulated Medusa sees it: {@link io.nicbridge.sim.fddi.FddiRing}, a token ring of exactly the
 * stations that joined, running the timed-token MAC in virtual time (claim, TTRT, TRT/THT, token and frame
 * timing at 100 Mb/s, stripping, E/A/C indicators) with the fault layer and LINKTYPE 10 capture; stations
 * implement {@link io.nicbridge.sim.fddi.FddiMac} and talk to the ring through an
 * {@link io.nicbridge.sim.fddi.FddiRingPort}. {@link io.nicbridge.sim.fddi.FddiTiming} states the wire numbers,
 * {@link io.nicbridge.sim.fddi.FddiFcs} the frame check sequence.
 */
package io.nicbridge.sim.fddi;
