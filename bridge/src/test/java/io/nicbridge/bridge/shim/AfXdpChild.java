package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.spi.Backends;

/** The child JVM of {@link AfXdpShimTest#aKilledProcessLeavesNoProgramBehind}: opens an AF_XDP card and waits to die. */
public final class AfXdpChild {
    private AfXdpChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        ShimCard card = (ShimCard) Backends.open("shim:afxdp?if=" + args[1] + "&card=dec21140&netns=" + args[0]);
        System.out.println("running " + card.transportText());
        System.out.flush();
        Thread.sleep(60_000); // killed long before
        card.close();
    }
}
