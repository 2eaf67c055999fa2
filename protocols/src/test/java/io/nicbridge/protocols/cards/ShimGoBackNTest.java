package io.nicbridge.protocols.cards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.cost.CostTable;
import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.protocols.gbn.GoBackNConfig;
import io.nicbridge.protocols.gbn.GoBackNCore;
import io.nicbridge.protocols.runner.ThreadPerNodeRunner;
import io.nicbridge.sim.backends.ShimTulipPair;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The go-back-N core and the {@link Exchange} application, unchanged, across a real link: two 21140s served by the
 * native shim on the ends of a veth pair in two network namespaces ({@link ShimTulipPair}, the shim backend's own
 * fixture), one real-time thread per node, readiness from the shim's card threads. Skipped with the reason where
 * namespaces, veth pairs or the shim are not available; required under {@code NICBRIDGE_REQUIRE=net}.
 */
class ShimGoBackNTest {
    @Test
    void goBackNRunsAcrossAVethPairBetweenTwoNamespaces() throws Exception {
        ShimTulipPair.assumeAvailable();
        try (ShimTulipPair pair = new ShimTulipPair("threaded", i -> TulipConfig.defaults())) {
            for (int i = 0; i < 2; i++) {
                assertTrue(pair.driver(i).awaitFilterLoaded(TimeUnit.SECONDS.toNanos(10), null));
            }
            List<MacAddress> macs = List.of(pair.mac(0), pair.mac(1));
            TulipLink[] tulipLinks = {new TulipLink(pair.driver(0), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE),
                    new TulipLink(pair.driver(1), macs, TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE)};
            assertTrue(tulipLinks[0].signalsReadiness() && tulipLinks[1].signalsReadiness());
            Link[] links = tulipLinks.clone();
            Exchange app = new Exchange(2, 1_000, 256);
            GoBackNConfig cfg = new GoBackNConfig(8, 256, TimeUnit.MILLISECONDS.toNanos(5));
            try (ThreadPerNodeRunner runner = new ThreadPerNodeRunner("shim-gbn", links, CostTable.zero(),
                    (l, c, cpu) -> new GoBackNCore(l, c, cfg, cpu), app, TimeUnit.MILLISECONDS.toNanos(1))) {
                runner.start();
                assertTrue(app.await(60), () -> "delivered " + app.delivered() + " of " + app.expectedTotal()
                        + "; " + tulipLinks[0] + "; " + tulipLinks[1]);
            }
            assertEquals(0, app.errors(), app::firstError);
            for (TulipLink l : tulipLinks) {
                l.close();
            }
        }
    }
}
