package io.nicbridge.bridge.shim;

import io.nicbridge.bridge.driver.tulip.MacAddress;
import io.nicbridge.bridge.driver.tulip.TulipConfig;
import io.nicbridge.bridge.driver.tulip.TulipDriver;
import io.nicbridge.bridge.driver.tulip.TulipLink;
import io.nicbridge.bridge.link.Link;
import io.nicbridge.bridge.platform.VethBridge;
import io.nicbridge.bridge.platform.VethPair;
import io.nicbridge.bridge.spi.Backends;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The stations of a real Ethernet segment as {@link TulipLink}s, the medium a protocol core runs over in real time:
 * per station a native-shim 21140 on its interface ({@code shim:afpacket?...&card=dec21140}), the Tulip driver with
 * its address filter loaded, and a link that names every station by its MAC. The two ends of a {@link VethPair}
 * ({@link #on(VethPair, Mode)}) or the N stations of a {@link VethBridge} ({@link #on(VethBridge, Mode)}); station i
 * is link peer i.
 * <pre>
 *   node i: core - TulipLink - TulipDriver - shim 21140 (AF_PACKET) - station i's interface - veth / bridge ...
 * </pre>
 * Setup-time object (opening cards allocates); close it to free the links, drivers and cards. The segment stays the
 * caller's.
 */
public final class ShimTulipLinks implements AutoCloseable {
    /** How each shim card runs. */
    public enum Mode {
        /** The card's own thread sleeps in epoll on the packet socket and raises the 21140's interrupt. */
        THREADED("threaded"),
        /** The card works only on the threads that call its {@link ShimCard#progress()} (user-level busy polling). */
        INLINE("inline");

        final String option;

        Mode(String option) {
            this.option = option;
        }
    }

    /** How each shim card moves frames (the backend's target). */
    public enum Transport {
        /** AF_PACKET: a PACKET_MMAP receive ring, and send()/sendmmsg() per card round ({@code tx=send}). */
        AF_PACKET("afpacket", "&tx=send"),
        /** AF_XDP: the card's frames in a UMEM, XSK rings (copy mode on a veth). */
        AF_XDP("afxdp", "");

        final String target;
        final String options;

        Transport(String target, String options) {
            this.target = target;
            this.options = options;
        }
    }

    /** The ethertype the links send under (IEEE's local experimental one): the kernel has no protocol for it. */
    public static final int ETHERTYPE = TulipLink.LOCAL_EXPERIMENTAL_ETHERTYPE;
    private static final long FILTER_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ShimCard[] cards;
    private final TulipDriver[] drivers;
    private final TulipLink[] links;

    /** Both ends of {@code veth} over AF_PACKET: station 0 is end A. */
    public static ShimTulipLinks on(VethPair veth, Mode mode) {
        return on(veth, mode, Transport.AF_PACKET);
    }

    /** Both ends of {@code veth}, each card over {@code transport}: station 0 is end A. */
    public static ShimTulipLinks on(VethPair veth, Mode mode, Transport transport) {
        return on(veth, mode, transport, TulipConfig.defaults());
    }

    /**
     * Both ends of {@code veth}, each card over {@code transport} and its driver opened with {@code driverConfig}
     * (e.g. {@link TulipConfig.InterruptMode#POLLING} for nodes that busy-poll their rings, as Linux masks a NIC's
     * interrupts while it busy-polls): station 0 is end A.
     */
    public static ShimTulipLinks on(VethPair veth, Mode mode, Transport transport, TulipConfig driverConfig) {
        return new ShimTulipLinks(new String[] {veth.namespaceA().name(), veth.namespaceB().name()},
            new String[] {veth.interfaceA(), veth.interfaceB()}, List.of(veth.macA(), veth.macB()), mode, transport,
            driverConfig);
    }

    /** Every station of {@code segment}, in station order. */
    public static ShimTulipLinks on(VethBridge segment, Mode mode) {
        int n = segment.stations();
        String[] namespaces = new String[n];
        String[] interfaces = new String[n];
        for (int i = 0; i < n; i++) {
            namespaces[i] = segment.namespace().name();
            interfaces[i] = segment.interfaceName(i);
        }
        return new ShimTulipLinks(namespaces, interfaces, segment.macs(), mode, Transport.AF_PACKET,
            TulipConfig.defaults());
    }

    private ShimTulipLinks(String[] namespaces, String[] interfaces, List<MacAddress> macs, Mode mode,
                           Transport transport, TulipConfig driverConfig) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(driverConfig, "driverConfig");
        int n = interfaces.length;
        cards = new ShimCard[n];
        drivers = new TulipDriver[n];
        links = new TulipLink[n];
        try {
            for (int i = 0; i < n; i++) {
                cards[i] = (ShimCard) Backends.open("shim:" + transport.target + "?if=" + interfaces[i]
                    + "&card=dec21140&netns=" + namespaces[i] + "&mode=" + mode.option + transport.options);
                drivers[i] = TulipDriver.open(cards[i], driverConfig);
            }
            for (int i = 0; i < n; i++) {
                // Frames sent before a chip took its setup frame would meet the old (empty) filter.
                if (!drivers[i].awaitFilterLoaded(FILTER_TIMEOUT_NANOS, mode == Mode.INLINE ? cards[i].progress()
                        : null)) {
                    throw new IllegalStateException(drivers[i].name() + ": the setup frame was not taken within "
                        + TimeUnit.NANOSECONDS.toSeconds(FILTER_TIMEOUT_NANOS) + " s");
                }
                links[i] = new TulipLink(drivers[i], macs, ETHERTYPE);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** @return the stations */
    public int size() {
        return links.length;
    }

    /** @return station {@code i}'s link (peer {@code i}) */
    public TulipLink link(int i) {
        return links[i];
    }

    /** @return every station's link, in station order (a runner's input) */
    public Link[] links() {
        return links.clone();
    }

    public TulipDriver driver(int i) {
        return drivers[i];
    }

    public ShimCard card(int i) {
        return cards[i];
    }

    /** @return every card's statistics, for a report */
    public String cardStatistics() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < cards.length; i++) {
            s.append(i == 0 ? "" : "; ").append(cards[i].statistics());
        }
        return s.toString();
    }

    /** Closes the links, then the drivers, then the cards. Idempotent. */
    @Override
    public void close() {
        for (int i = 0; i < cards.length; i++) {
            if (links[i] != null) {
                links[i].close();
                links[i] = null;
            }
            if (drivers[i] != null) {
                drivers[i].close();
                drivers[i] = null;
            }
            if (cards[i] != null) {
                cards[i].close();
                cards[i] = null;
            }
        }
    }
}
