package io.nicbridge.protocols.unet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.driver.unet.UnetEndpoint;
import io.nicbridge.bridge.driver.unet.UnetKernelDriver;
import io.nicbridge.bridge.driver.unet.UnetLink;
import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.memory.CommSegment;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.shim.ShimBackendProvider;
import io.nicbridge.bridge.shim.ShimCard;
import io.nicbridge.bridge.spi.Availability;
import io.nicbridge.bridge.spi.Backends;
import io.nicbridge.protocols.am.AmConfig;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.testing.Capability;
import io.nicbridge.testing.Requirements;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same Active Messages library and application as on the emulated SBA-200 ({@link ActiveMessagesOnSba200Test}),
 * unchanged, on U-Net over Ethernet: two shim-served SBA-200 contracts at the ends of a veth pair in two network
 * namespaces, in real time, one thread per node. The veth pair runs a 9000-byte MTU (the paper's 9 KB over a U-Net
 * channel) so a 4160-byte buffer's PDU is one Ethernet frame. Skipped with the reason where the shim or namespaces
 * are not available; required under {@code NICBRIDGE_REQUIRE=net}.
 */
class ActiveMessagesOverUnetEthernetTest {
    static final int OPERATIONS = 90;
    static final int VCI_A_TO_B = 100;
    static final int VCI_B_TO_A = 101;
    /** Real time on a shared machine: a 20 ms RTO, acks held up to 1 ms. */
    static final AmConfig CONFIG = new AmConfig(8, AmConfig.PAPER_BUFFER_BYTES, TimeUnit.MILLISECONDS.toNanos(20),
            TimeUnit.MILLISECONDS.toNanos(1), AmExchange.MEMORY);

    @ParameterizedTest
    @ValueSource(strings = {"threaded", "inline"})
    void requestsStoresAndGetsAllCompleteAcrossAVethPair(String mode) throws Exception {
        Availability shim = new ShimBackendProvider().availability();
        Requirements.assume(Capability.SHIM, shim.available(), shim::reason);
        Availability veth = VethPair.availability();
        Requirements.assume(Capability.NET, veth.available(), veth::reason);
        AmExchange app = new AmExchange(CONFIG, OPERATIONS);
        int mtu = CONFIG.linkMtu();
        try (VethPair pair = VethPair.builder().ipv4(false).mtu(9000).create();
             ShimCard cardA = card(pair, true, mode);
             ShimCard cardB = card(pair, false, mode);
             UnetKernelDriver kernelA = UnetKernelDriver.open(cardA, cardA.bcr(), cardA.progress());
             UnetKernelDriver kernelB = UnetKernelDriver.open(cardB, cardB.bcr(), cardB.progress());
             CommSegment segA = CommSegment.allocate("a", 512 * 1024);
             CommSegment segB = CommSegment.allocate("b", 512 * 1024)) {
            UnetEndpoint a = kernelA.createEndpoint(0, segA, 64);
            UnetEndpoint b = kernelB.createEndpoint(0, segB, 64);
            kernelA.openChannel(a, 0, 0, VCI_A_TO_B, VCI_B_TO_A);
            kernelB.openChannel(b, 0, 0, VCI_B_TO_A, VCI_A_TO_B);
            UnetLink la = new UnetLink("eth-a", a, 0, new int[] {0, 0}, 0, mtu, 16, 48);
            UnetLink lb = new UnetLink("eth-b", b, 1, new int[] {0, 0}, 0, mtu, 16, 48);
            if (mode.equals("inline")) {
                la.progress(cardA.progress());
                lb.progress(cardB.progress());
            }
            try (la; lb; ThreadPerNodeRunner runner = new ThreadPerNodeRunner("am-unet-eth", new UnetLink[] {la, lb},
                    CostTable.zero(), app.cores(), app, TimeUnit.MICROSECONDS.toNanos(200))) {
                runner.start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                IdleStrategy idle = BackoffIdle.cardWait(TimeUnit.MILLISECONDS.toNanos(1));
                while (!app.done() && System.nanoTime() < deadline) {
                    idle.idle();
                }
                runner.close();
                assertEquals(0, app.errors(), app.firstError());
                assertEquals(2L * OPERATIONS, app.completed(), runner.node(0).core() + " / " + runner.node(1).core()
                        + "; " + cardA.statistics() + " / " + cardB.statistics());
            }
        }
    }

    private static ShimCard card(VethPair pair, boolean a, String mode) {
        String ifname = a ? pair.interfaceA() : pair.interfaceB();
        String ns = (a ? pair.namespaceA() : pair.namespaceB()).name();
        String peer = (a ? pair.macB() : pair.macA()).toString().replace(':', '-');
        return (ShimCard) Backends.open("shim:afpacket?if=" + ifname + "&card=sba200&netns=" + ns + "&mode=" + mode
                + "&peer=" + peer + "&frame-size=8192");
    }
}
