package io.nicbridge.bridge.spi;

import io.nicbridge.bridge.memory.DmaSpace;
import io.nicbridge.bridge.regs.RegisterSideEffects;
import io.nicbridge.bridge.regs.Registers;
import java.lang.foreign.Arena;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A test-only backend (registered in src/test/resources/META-INF/services) that builds a minimal card:
 * a status register at 0x0 (write-1-to-clear), a mask register at 0x4, and the interrupt line driven
 * from (status & mask). It exists to exercise the SPI, not to model any hardware.
 */
public final class TestCardProvider implements BackendProvider {
    static final int STATUS = 0x0;
    static final int MASK = 0x4;

    @Override
    public String scheme() {
        return "test";
    }

    @Override
    public List<String> cards() {
        return List.of("statuscard", "other");
    }

    @Override
    public Availability availability() {
        return Availability.ok();
    }

    @Override
    public Card open(DeviceSpec spec) {
        String order = spec.param("order", "le");
        if (!order.equals("le") && !order.equals("be")) {
            throw new IllegalArgumentException("order must be le or be, was " + order);
        }
        return new StatusCard(spec, order.equals("be") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }

    static final class StatusCard implements Card, RegisterSideEffects {
        private final DeviceSpec spec;
        private final Arena arena = Arena.ofShared();
        private final Registers registers;
        private final DmaSpace dma;
        private final InterruptLine line;
        private boolean closed;

        StatusCard(DeviceSpec spec, ByteOrder order) {
            this.spec = spec;
            this.registers = new Registers(spec.card() + " regs", arena.allocate(16, 8), order, this, STATUS, MASK);
            this.dma = new DmaSpace(spec.card());
            this.line = new InterruptLine(spec.card() + " irq");
        }

        /** The "card" sets status bits, as a device engine would. */
        void raiseStatus(int bits) {
            registers.getAndBitwiseOrRaw(STATUS, bits);
            line.update(registers.loadRaw(STATUS), registers.loadRaw(MASK));
        }

        @Override
        public int onRead(int offset, int storedValue) {
            return storedValue;
        }

        @Override
        public void onWrite(int offset, int value) {
            if (offset == STATUS) {
                registers.getAndBitwiseAndRaw(STATUS, ~value);
            } else {
                registers.storeRaw(MASK, value);
            }
            line.update(registers.loadRaw(STATUS), registers.loadRaw(MASK));
        }

        @Override
        public String name() {
            return spec.card() + "#test";
        }

        @Override
        public DeviceSpec spec() {
            return spec;
        }

        @Override
        public Registers registers() {
            return registers;
        }

        @Override
        public DmaSpace dma() {
            return dma;
        }

        @Override
        public InterruptLine interrupt() {
            return line;
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                arena.close();
            }
        }
    }
}
