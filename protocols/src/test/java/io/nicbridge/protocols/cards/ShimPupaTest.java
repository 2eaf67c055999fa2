package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.pupa.PupaConfig;
import io.nicbridge.protocols.pupa.PupaCore;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.backends.ShimTulipPair;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Pupa core as the paper has it (no software checksum; the FCS is the kernel's and the veth's) and the
 * {@link Exchange} application across a real link: two native-shim 21140s on the ends of a veth pair in two network
 * namespaces, one real-time thread per node; bodies in the primary FIFO, the secondary pool and the card's receive
 * buffer (fragmented). Skipped with the reason where namespaces, veth pairs or the shim are not available.
 */
class ShimPupaTest {
    @ParameterizedTest
    @ValueSource(ints = {24, 100, 2048})
    void pupaRunsAcrossAVethPairBetweenTwoNamespaces(int size) throws Exception {
        ShimTulipPair.assumeAvailable();
        try (ShimTulipPair pair = new ShimTulipPair("threaded", i -> TulipConfig.defaults())) {
            for (int i = 0; i < 2; i++) {
                assertTrue(pair.driver(i).awaitFilterLoaded(TimeUnit.SECONDS.toNanos(10), null));
            }
            List<MacAddress> macs = List.of(pair.mac(0), pair.mac(1));
            TulipLink[] tulipLinks = {new TulipLink(pair.driver(0), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
                    new TulipLink(pair.driver(1), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)};
            Link[] links = tulipLinks.clone();
            // 1000 messages per node at every size, fragmented ones too: a loaded CI run once delivered only 1807 of
            // 2 x 1000 2048-byte messages in 60 s (issue 15). Fixed in PupaCore: fragments waiting for a lost one no
            // longer hold the card's receive ring (spill), numbered NACKs repair a loss at once however many frames
            // were behind it, an overflow grants zero credit until the application frees space, and 64 mbufs.
            Exchange app = new Exchange(2, 1_000, size);
            PupaConfig cfg = PupaConfig.defaults();
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("shim-pupa", links, CostTable.zero(),
                    (l, c, cpu) -> new PupaCore(l, c, cfg, cpu), app, TimeUnit.MILLISECONDS.toNanos(1))) {
                long start = System.nanoTime();
                runner.start();
                boolean done = app.await(60);
                String report = String.format("%d B: %d of %d delivered in %.2f s; node 0: %s; node 1: %s; cards: %s,"
                        + " %s", size, app.delivered(), app.expectedTotal(), (System.nanoTime() - start) / 1e9,
                        runner.node(0).core(), runner.node(1).core(), pair.driver(0).statistics(),
                        pair.driver(1).statistics());
                System.out.println(report);
                assertTrue(done, report);
            }
            assertEquals(0, app.errors(), app::firstError);
            for (TulipLink l : tulipLinks) {
                l.close();
            }
        }
    }
}
