/**
 * Classic libpcap capture of any link: {@link io.nicbridge.sim.capture.PcapWriter} (allocation-free
 * recording, timestamps from the simulated or real clock, LINKTYPE 1 Ethernet, 10 FDDI, 123 SunATM, the
 * FCS-length flag) and {@link io.nicbridge.sim.capture.PcapReader} to read files back.
 */
package io.nicbridge.sim.capture;
