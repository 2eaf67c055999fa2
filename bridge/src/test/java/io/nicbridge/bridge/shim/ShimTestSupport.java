package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;

/** Opening shim-served 21140s with Tulip drivers on a fresh veth pair, for the shim's real-network tests. */
final class ShimTestSupport {
    private ShimTestSupport() {
    }

    /** Skips the calling test, with the reason, where the shim or veth pairs cannot work. */
    static void assumeShimAndVeth() {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability pair = VethPair.availability();
        Requirements.assume(Capability.NET, pair.available(), pair::reason);
    }

    /** {@link #assumeShimAndVeth()}, and for {@code afxdp} what the XDP program needs. */
    static void assumeShimAndVeth(String target) {
        assumeShimAndVeth();
        if (ShimBackendProvider.TARGET_AF_XDP.equals(target)) {
            Availability xdp = ShimBackendProvider.xdpAvailability();
            Requirements.assume(Capability.SHIM, xdp.available(), xdp::reason);
        }
    }

    /** A shim 21140 on end {@code a} (true) or {@code b} of the pair, over AF_PACKET. */
    static ShimCard card(VethPair veth, boolean a, String params) {
        return card(ShimBackendProvider.TARGET, veth, a, params);
    }

    /** A shim 21140 on end {@code a} (true) or {@code b} of the pair, on {@code target} (afpacket or afxdp). */
    static ShimCard card(String target, VethPair veth, boolean a, String params) {
        String ifname = a ? veth.interfaceA() : veth.interfaceB();
        String ns = (a ? veth.namespaceA() : veth.namespaceB()).name();
        return (ShimCard) Backends.open("shim:" + target + "?if=" + ifname + "&card=dec21140&netns=" + ns
            + (params.isEmpty() ? "" : "&" + params));
    }

    /** A Tulip driver on the card whose setup frame the card has processed. */
    static TulipDriver driver(ShimCard card, TulipConfig config) {
        TulipDriver d = TulipDriver.open(card, config);
        if (!d.awaitFilterLoaded(5_000_000_000L, card.progress())) {
            d.close();
            throw new AssertionError(card.name() + ": the setup frame was not processed");
        }
        return d;
    }
}
