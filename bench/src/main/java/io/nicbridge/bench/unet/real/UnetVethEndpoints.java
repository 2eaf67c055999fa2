package io.nicbridge.bench.unet.real;

import io.nicbridge.bridge.driver.unet.Endpoint;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.shim.XskUnetEndpoint;
import io.nicbridge.bridge.spi.Backends;

/**
 * Two U-Net endpoints at the ends of a {@link VethPair}, each with one channel (channel 0) to the other: the fixture
 * every real-time U-Net-over-Ethernet run stands on (UDP/TCP round trips and streams, Table 3 over Ethernet). One of two
 * kinds, the same frames on the wire (nicshim.h "U-Net over Ethernet"):
 * <ul>
 *   <li>{@link #cards}: on each end a native-shim SBA-200 contract on an AF_PACKET socket, INLINE (its work is done by
 *       whichever thread runs {@link ShimCard#progress()}), its U-Net kernel driver, a communication segment and one
 *       endpoint in it;</li>
 *   <li>{@link #directs}: on each end a direct-access AF_XDP endpoint (its queues are the XSK rings).</li>
 * </ul>
 * The caller builds its links on {@link #endpoint} and closes them before this fixture, which then closes each end's
 * kernel driver before its card and the segment last.
 */
public final class UnetVethEndpoints implements AutoCloseable {
    /** The one channel each endpoint opens to the other end. */
    public static final int CHANNEL = 0;

    private final ShimCard[] cards = new ShimCard[2];
    private final UnetKernelDriver[] kernels = new UnetKernelDriver[2];
    private final CommSegment[] segments = new CommSegment[2];
    private final XskUnetEndpoint[] directs = new XskUnetEndpoint[2];
    private final Endpoint[] endpoints = new Endpoint[2];

    private UnetVethEndpoints() {
    }

    /**
     * Shim SBA-200 cards on both ends.
     *
     * @param name          the segments' name prefix
     * @param vci0To1       the VCI end 0 sends on (and end 1 receives on); {@code vci1To0} the other way
     * @param cardOptions   more device-spec parameters of both cards (e.g. {@code "&frame-size=16384&drop=1"}), or ""
     * @param segmentBytes  each end's communication segment
     * @param receiveQueue  each endpoint's receive queue length
     */
    public static UnetVethEndpoints cards(VethPair veth, String name, int vci0To1, int vci1To0, String cardOptions,
                                          long segmentBytes, int receiveQueue) {
        UnetVethEndpoints f = new UnetVethEndpoints();
        try {
            for (int i = 0; i < 2; i++) {
                f.cards[i] = (ShimCard) Backends.open("shim:afpacket?if=" + iface(veth, i) + "&card=sba200&netns="
                    + netns(veth, i) + "&mode=inline&peer=" + peer(veth, i) + cardOptions);
                f.kernels[i] = UnetKernelDriver.open(f.cards[i], f.cards[i].bcr(), f.cards[i].progress());
                f.segments[i] = CommSegment.allocate(name + "-" + i, segmentBytes);
                UnetEndpoint ep = f.kernels[i].createEndpoint(0, f.segments[i], receiveQueue);
                f.kernels[i].openChannel(ep, CHANNEL, 0, i == 0 ? vci0To1 : vci1To0, i == 0 ? vci1To0 : vci0To1);
                f.endpoints[i] = ep;
            }
        } catch (RuntimeException | Error e) {
            f.close();
            throw e;
        }
        return f;
    }

    /**
     * Direct-access AF_XDP endpoints on both ends.
     *
     * @param vci0To1   the VCI end 0 sends on (and end 1 receives on); {@code vci1To0} the other way
     * @param options   more device-spec parameters of both endpoints (e.g. {@code "&frame-size=4096"}), or ""
     * @param umemBytes each endpoint's UMEM
     */
    public static UnetVethEndpoints directs(VethPair veth, int vci0To1, int vci1To0, String options, long umemBytes) {
        UnetVethEndpoints f = new UnetVethEndpoints();
        try {
            for (int i = 0; i < 2; i++) {
                f.directs[i] = ShimBackendProvider.openUnetEndpoint("shim:afxdp?if=" + iface(veth, i)
                    + "&card=unet-direct&netns=" + netns(veth, i) + "&peer=" + peer(veth, i) + options, umemBytes);
                f.directs[i].openChannel(CHANNEL, 0, i == 0 ? vci0To1 : vci1To0, i == 0 ? vci1To0 : vci0To1);
                f.endpoints[i] = f.directs[i];
            }
        } catch (RuntimeException | Error e) {
            f.close();
            throw e;
        }
        return f;
    }

    private static String iface(VethPair veth, int i) {
        return i == 0 ? veth.interfaceA() : veth.interfaceB();
    }

    private static String netns(VethPair veth, int i) {
        return (i == 0 ? veth.namespaceA() : veth.namespaceB()).name();
    }

    /** The other end's MAC, as the shim's {@code peer=} parameter spells it. */
    private static String peer(VethPair veth, int i) {
        return (i == 0 ? veth.macB() : veth.macA()).toString().replace(':', '-');
    }

    /** @return end {@code i}'s endpoint, with its channel open */
    public Endpoint endpoint(int i) {
        return endpoints[i];
    }

    /** @return end {@code i}'s shim card, or null on direct endpoints */
    public ShimCard card(int i) {
        return cards[i];
    }

    /** @return end {@code i}'s U-Net kernel driver, or null on direct endpoints */
    public UnetKernelDriver kernel(int i) {
        return kernels[i];
    }

    /** @return end {@code i}'s direct endpoint, or null on cards */
    public XskUnetEndpoint direct(int i) {
        return directs[i];
    }

    @Override
    public void close() {
        for (int i = 0; i < 2; i++) {
            if (kernels[i] != null) {
                kernels[i].close();
            }
            if (cards[i] != null) {
                cards[i].close();
            }
            if (directs[i] != null) {
                directs[i].close();
            }
            if (segments[i] != null) {
                segments[i].close();
            }
        }
    }
}
