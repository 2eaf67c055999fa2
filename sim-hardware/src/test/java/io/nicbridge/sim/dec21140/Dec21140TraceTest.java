package io.nicbridge.sim.dec21140;

import static io.nicbridge.contract.Dec21140.*;
import static io.nicbridge.sim.dec21140.CardHarness.*;
import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The state-change hook sees every TS/RS transition, in order, and only transitions. */
class Dec21140TraceTest {
    private final CardHarness h = new CardHarness();
    private final List<String> seen = new ArrayList<>();

    @AfterEach
    void close() {
        h.close();
    }

    private void record() {
        h.card.trace((process, from, to) -> {
            assertNotEquals(from, to, "only changes are traced");
            seen.add((process == Dec21140Trace.TRANSMIT ? "TS " : "RS ") + from + "->" + to);
        });
    }

    @Test
    void transmitOfOneFrameWalksTheTransmitStates() {
        record();
        byte[] f = frame(PEER, MAC, 0x0800, 46);
        h.put(TX_BUF, f);
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | f.length, h.bus(TX_BUF), 0);
        h.start(0);
        assertEquals(1, h.wire.frames.size());
        assertEquals(List.of(
            "TS 0->1", "RS 0->3",                   // the CSR6 write: ST stopped -> fetch, SR stopped -> wait
            "TS 1->3", "TS 3->2", "TS 2->7", "TS 7->1", // read buffer, wait end, close descriptor, fetch
            "TS 1->6"), seen);                      // next descriptor host-owned: suspended
    }

    @Test
    void receiveOfOneFrameWalksTheReceiveStatesAndAResetStopsBoth() {
        h.desc(RX_RING, RDES0_OWN, 1536 | RDES1_RER, h.bus(RX_BUF), 0);
        h.start(CSR6_PR);
        record();
        h.arrive(withFcs(frame(MAC, PEER, 0x0800, 46)));
        assertEquals(List.of("RS 3->1", "RS 1->7", "RS 7->5", "RS 5->3"), seen); // fetch, queue, close, wait
        seen.clear();
        h.write(CSR0, CSR0_SWR);
        assertEquals(List.of("TS 6->0", "RS 3->0"), seen);
    }

    @Test
    void aFatalBusErrorStopsBothProcesses() {
        h.desc(TX_RING, TDES0_OWN, TDES1_FS | TDES1_LS | 60, 0xFFFF_F000L, 0); // a buffer nobody registered
        h.write(CSR3, h.bus32(RX_RING));
        h.write(CSR4, h.bus32(TX_RING));
        h.write(CSR6, CSR6_MBO | CSR6_SR);
        record();
        h.write(CSR6, CSR6_MBO | CSR6_SR | CSR6_ST);
        assertEquals(CSR5_FBE, h.read(CSR5) & CSR5_FBE);
        assertEquals(List.of("TS 0->1", "TS 1->3", "TS 3->0", "RS 3->0"), seen);
    }
}
