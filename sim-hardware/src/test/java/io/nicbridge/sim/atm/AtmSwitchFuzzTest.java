package io.nicbridge.sim.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nicbridge.contract.Sba200Unet;
import io.nicbridge.sim.engine.VirtualTimeEngine;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ATM switch and its network service directly, not through a card: stations put any cell on their uplinks (any
 * header, good or bad HEC, or a cell on a path the service set up) while paths are set up and torn down in any order,
 * including a path disconnected twice and set-ups until a port runs out of VCIs.
 * <ul>
 *   <li>no exception but the documented refusals ({@link IllegalStateException} "no free VCI",
 *       {@link IllegalArgumentException} for a path that is not connected);</li>
 *   <li>every cell a station receives has a good HEC and VPI 0, keeps its GFC, PTI, CLP and payload, and came from
 *       the station at the other end of a route that existed, on the VCI that route gave;</li>
 *   <li>every cell that went onto an uplink is switched or counted as exactly one kind of drop, and every switched
 *       cell reaches its station; counters never go back;</li>
 *   <li>live paths keep the routes they were given, and once every path is disconnected every port's VCIs are free
 *       again (none leaks).</li>
 * </ul>
 * Corpus: {@code src/test/resources/io/nicbridge/sim/atm/AtmSwitchFuzzTestInputs/switchAndPaths/}.
 */
class AtmSwitchFuzzTest {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @FuzzTest(maxDuration = "30s")
    void switchAndPaths(FuzzedDataProvider script) {
        int ports = script.consumeInt(1, 4);
        try (VirtualTimeEngine engine = new VirtualTimeEngine(1)) {
            AtmSwitch sw = AtmSwitch.builder(engine.timeBase()).ports(ports)
                .linkCapacity(1 << script.consumeInt(1, 5)).ingressCells(1 << script.consumeInt(1, 5)).build();
            sw.attach(engine);
            Fabric f = new Fabric(sw, ports);
            for (int step = 0; step < 48 && script.remainingBytes() > 0; step++) {
                switch (script.consumeInt(0, 5)) {
                    case 0 -> f.connect(script.consumeInt(0, ports - 1), script.consumeInt(0, ports - 1),
                        script.consumeInt(1, 300));
                    case 1 -> f.disconnect(script.consumeInt(0, Integer.MAX_VALUE));
                    case 2 -> f.sendOnPath(script);
                    case 3 -> f.sendRaw(script);
                    case 4 -> engine.runFor(script.consumeLong(0, 50_000));
                    default -> engine.runUntilIdle();
                }
                f.checkCounters();
            }
            engine.runUntilIdle();
            f.checkCounters();
            f.checkConservation();
            f.checkRoutesAndVcis();
        }
    }

    /** The switch, its stations (which record what they receive) and the book of paths and sent cells. */
    private static final class Fabric {
        final AtmSwitch sw;
        final AtmNetworkService net;
        final AtmSwitch.Port[] ports;
        final List<AtmPath> everConnected = new ArrayList<>();
        final Set<AtmPath> live = new HashSet<>();
        /** (inPort, inVci) -> every (outPort, outVci) a route ever took it to. */
        final Map<Integer, Set<Integer>> routesEver = new HashMap<>();
        /** serial -> the cell as sent (53 bytes) and its input port. */
        final Map<Integer, byte[]> sent = new HashMap<>();
        final Map<Integer, Integer> sentFrom = new HashMap<>();
        int nextSerial = 1;
        long onUplinks;
        long received;
        final long[] last = new long[6];

        Fabric(AtmSwitch sw, int n) {
            this.sw = sw;
            this.net = new AtmNetworkService(sw);
            this.ports = new AtmSwitch.Port[n];
            for (int p = 0; p < n; p++) {
                int port = p;
                ports[p] = sw.connect((cell, offset) -> arrived(port, cell, offset));
            }
        }

        void connect(int a, int b, int times) {
            for (int i = 0; i < times; i++) {
                AtmPath path;
                try {
                    path = net.connect(a, b);
                } catch (IllegalStateException full) {
                    assertTrue(full.getMessage().contains("no free VCI"), full.getMessage());
                    return;
                }
                everConnected.add(path);
                assertTrue(live.add(path), "path handed out twice: " + path);
                routesEver.computeIfAbsent(key(a, path.aTxVci()), k -> new HashSet<>()).add(key(b, path.bRxVci()));
                routesEver.computeIfAbsent(key(b, path.bTxVci()), k -> new HashSet<>()).add(key(a, path.aRxVci()));
            }
        }

        void disconnect(int which) {
            if (everConnected.isEmpty()) {
                return;
            }
            AtmPath path = everConnected.get(which % everConnected.size());
            if (live.remove(path)) {
                net.disconnect(path);
            } else {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> net.disconnect(path),
                    "disconnecting a path that is not connected");
                assertTrue(e.getMessage().contains("not connected"), e.getMessage());
            }
        }

        void sendOnPath(FuzzedDataProvider script) {
            if (everConnected.isEmpty()) {
                return;
            }
            AtmPath path = everConnected.get(script.consumeInt(0, everConnected.size() - 1));
            boolean fromA = script.consumeBoolean();
            int header = AtmCells.header(path.vpi(), fromA ? path.aTxVci() : path.bTxVci(), script.consumeInt(0, 7),
                script.consumeInt(0, 1)) | script.consumeInt(0, 15) << Sba200Unet.HDR_GFC_SHIFT;
            send(fromA ? path.portA() : path.portB(), header, true, script.consumeBytes(AtmCells.PAYLOAD_SIZE - 4));
        }

        void sendRaw(FuzzedDataProvider script) {
            send(script.consumeInt(0, ports.length - 1), script.consumeInt(), script.consumeBoolean(),
                script.consumeBytes(AtmCells.PAYLOAD_SIZE - 4));
        }

        /** A cell with the serial in payload bytes 0..3 and the fuzzer's bytes after them. */
        private void send(int port, int header, boolean goodHec, byte[] rest) {
            MemorySegment cell = MemorySegment.ofArray(new byte[AtmCells.CELL_SIZE]);
            AtmCells.writeHeader(cell, 0, header);
            if (!goodHec) {
                cell.set(ValueLayout.JAVA_BYTE, AtmCells.HEC_OFFSET,
                    (byte) (cell.get(ValueLayout.JAVA_BYTE, AtmCells.HEC_OFFSET) ^ 0x01));
            }
            int serial = nextSerial++;
            cell.set(INT_BE, AtmCells.HEADER_SIZE, serial);
            MemorySegment.copy(MemorySegment.ofArray(rest), 0, cell, AtmCells.HEADER_SIZE + 4, rest.length);
            if (ports[port].uplink().transmit(cell, 0)) { // false: the fiber's queue is full, back-pressure
                onUplinks++;
                sent.put(serial, cell.toArray(ValueLayout.JAVA_BYTE));
                sentFrom.put(serial, port);
            }
        }

        private void arrived(int port, MemorySegment cell, long offset) {
            received++;
            assertTrue(AtmCells.hecOk(cell, offset), "station " + port + " got a cell with a bad HEC");
            int header = AtmCells.readHeader(cell, offset);
            int serial = cell.get(INT_BE, offset + AtmCells.HEADER_SIZE);
            byte[] original = sent.get(serial);
            assertTrue(original != null, "station " + port + " got cell " + serial + ", which nobody sent");
            MemorySegment was = MemorySegment.ofArray(original);
            int in = AtmCells.readHeader(was, 0);
            assertEquals(AtmCells.gfc(in), AtmCells.gfc(header), "GFC of cell " + serial);
            assertEquals(AtmCells.pti(in), AtmCells.pti(header), "PTI of cell " + serial);
            assertEquals(AtmCells.clp(in), AtmCells.clp(header), "CLP of cell " + serial);
            assertEquals(-1L, MemorySegment.mismatch(was, AtmCells.HEADER_SIZE, AtmCells.CELL_SIZE, cell,
                offset + AtmCells.HEADER_SIZE, offset + AtmCells.CELL_SIZE), "payload of cell " + serial);
            Set<Integer> outs = routesEver.get(key(sentFrom.get(serial), AtmCells.vci(in)));
            assertTrue(outs != null && outs.contains(key(port, AtmCells.vci(header))) && AtmCells.vpi(header) == 0,
                "cell " + serial + " from port " + sentFrom.get(serial) + " VCI " + AtmCells.vci(in) + " reached port "
                    + port + " on VPI " + AtmCells.vpi(header) + " VCI " + AtmCells.vci(header)
                    + ", where no route ever led");
        }

        void checkCounters() {
            long[] now = {sw.switched(), sw.hecDrops(), sw.unroutedDrops(), sw.overflowDrops(), sw.ingressOverflows(),
                received};
            for (int i = 0; i < now.length; i++) {
                assertTrue(now[i] >= last[i], "switch counter " + i + " went from " + last[i] + " to " + now[i]);
            }
            System.arraycopy(now, 0, last, 0, now.length);
        }

        /** With the world idle: every cell that went onto an uplink is accounted for exactly once. */
        void checkConservation() {
            for (AtmSwitch.Port p : ports) {
                assertEquals(0, p.uplink().inFlight(), "cells still on uplink " + p.number());
                assertEquals(0, p.downlink().inFlight(), "cells still on downlink " + p.number());
            }
            assertEquals(onUplinks, sw.switched() + sw.hecDrops() + sw.unroutedDrops() + sw.overflowDrops()
                + sw.ingressOverflows(), "cells put on the uplinks against their fates");
            assertEquals(sw.switched(), received, "cells switched against cells the stations received");
        }

        /** Live paths route as set up; after disconnecting everything, every port's VCIs are free again. */
        void checkRoutesAndVcis() {
            for (AtmPath p : live) {
                assertEquals(p.portB() << 24 | p.bRxVci(), sw.routeOf(p.portA(), p.aTxVci()), "route A->B of " + p);
                assertEquals(p.portA() << 24 | p.aRxVci(), sw.routeOf(p.portB(), p.bTxVci()), "route B->A of " + p);
            }
            for (AtmPath p : List.copyOf(live)) {
                net.disconnect(p);
                live.remove(p);
            }
            for (int port = 0; port < ports.length; port++) {
                AtmPath fresh = net.connect(port, port);
                assertEquals(List.of(AtmNetworkService.FIRST_VCI, AtmNetworkService.FIRST_VCI + 1,
                    AtmNetworkService.FIRST_VCI + 2, AtmNetworkService.FIRST_VCI + 3),
                    List.of(fresh.aTxVci(), fresh.bRxVci(), fresh.bTxVci(), fresh.aRxVci()),
                    "VCIs of port " + port + " after every path was disconnected");
                net.disconnect(fresh);
            }
        }

        private static int key(int port, int vci) {
            return port << 16 | vci;
        }
    }

}
