package io.nicbridge.sim.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nicbridge.bridge.idle.BackoffIdle;
import io.nicbridge.bridge.idle.BusySpinIdle;
import io.nicbridge.bridge.idle.IdleStrategy;
import io.nicbridge.bridge.idle.ParkIdle;
import io.nicbridge.bridge.idle.YieldIdle;
import org.junit.jupiter.api.Test;

class EnginesTest {

    @Test
    void modesByName() {
        assertEquals(EngineMode.INLINE, Engines.parseMode("inline"));
        assertEquals(EngineMode.THREADED, Engines.parseMode("Threaded"));
        assertEquals(EngineMode.VIRTUAL, Engines.parseMode(" VIRTUAL "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Engines.parseMode("turbo"));
        assertTrue(e.getMessage().contains("'turbo'") && e.getMessage().contains("inline, threaded, virtual"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Engines.parseMode(null));
    }

    @Test
    void createsEachMode() {
        try (DeviceEngine inline = Engines.create("inline", 1, null);
             DeviceEngine threaded = Engines.create(EngineMode.THREADED, 1, new YieldIdle());
             DeviceEngine virtual = Engines.create("virtual", 99, null)) {
            assertInstanceOf(InlineEngine.class, inline);
            assertInstanceOf(ThreadedEngine.class, threaded);
            assertInstanceOf(VirtualTimeEngine.class, virtual);
            assertEquals(99, ((VirtualTimeEngine) virtual).timeBase().seed());
            assertEquals(EngineMode.THREADED, threaded.mode());
            assertEquals(0, threaded.poll(), "threaded engines do their work on their own threads");
            assertEquals(0, virtual.poll(), "virtual engines do their work in the scheduler");
        }
        try (DeviceEngine threaded = Engines.create("threaded", 1, "park:5000")) {
            assertEquals("park:5000", ((ThreadedEngine) threaded).idleStrategy().describe());
        }
        assertThrows(IllegalArgumentException.class, () -> Engines.create(EngineMode.THREADED, 1, null));
    }

    @Test
    void idleStrategiesByName() {
        assertInstanceOf(BusySpinIdle.class, IdleStrategy.parse("spin"));
        assertInstanceOf(YieldIdle.class, IdleStrategy.parse("yield"));
        assertInstanceOf(ParkIdle.class, IdleStrategy.parse("park"));
        assertEquals(2_000, ((ParkIdle) IdleStrategy.parse("park:2000")).parkNanos());
        assertInstanceOf(BackoffIdle.class, IdleStrategy.parse("BACKOFF"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.parse("nap"));
        assertTrue(e.getMessage().contains("spin, yield, park"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.parse("park:soon"));
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.parse("park:0"));
    }
}
