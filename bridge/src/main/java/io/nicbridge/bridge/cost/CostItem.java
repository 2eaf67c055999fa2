package io.nicbridge.bridge.cost;

import java.util.Locale;

/**
 * One kind of host work a node's CPU is charged for ({@link HostCpu#charge}), priced by a {@link CostTable} in
 * picoseconds per unit. The unit is part of the item: a call, a byte, a 32-bit bus word or an interrupt. Who charges
 * what (the rules every runner, core and framing follows) is in the package documentation.
 */
public enum CostItem {
    /** The runner hands one event to a core: an event-loop pass that calls one handler through its interface. */
    HANDLER_DISPATCH(Unit.CALL),
    /** Arming (or re-arming) one timer in the node's timer heap. */
    TIMER_ARM(Unit.CALL),
    /** Cancelling one armed timer. */
    TIMER_CANCEL(Unit.CALL),
    /** One lookup in a small demultiplexing table: a source address to a peer, a channel tag to an endpoint. */
    TABLE_LOOKUP(Unit.CALL),
    /** Handing one descriptor to the card: fill its words, then its ownership word with release semantics. */
    DESCRIPTOR_POST(Unit.CALL),
    /** Taking one descriptor back from the card: its ownership word with acquire semantics, then its status. */
    DESCRIPTOR_RECLAIM(Unit.CALL),
    /** One byte copied by the host CPU (memory to memory). */
    COPY(Unit.BYTE),
    /** One byte run through a checksum by the host CPU (CRC-32C, as the go-back-N core uses). */
    CHECKSUM(Unit.BYTE),
    /** One 32-bit big-endian word the host moves by programmed I/O through a card's window (the Medusa bus). */
    PIO_WORD(Unit.WORD),
    /** One interrupt (or readiness notification) that wakes the node to service its card. */
    INTERRUPT(Unit.INTERRUPT);

    /** What one unit of an item is. */
    public enum Unit {
        CALL, BYTE, WORD, INTERRUPT;

        /** @return the unit's name in a cost table key: {@code call}, {@code byte}, ... */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final CostItem[] ALL = values();

    private final Unit unit;
    private final String label;

    CostItem(Unit unit) {
        this.unit = unit;
        this.label = name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public Unit unit() {
        return unit;
    }

    /** @return the item's name in tables and reports, e.g. {@code handler-dispatch} */
    public String label() {
        return label;
    }

    /** @return the item's key in a cost table file, e.g. {@code copy.ps-per-byte} */
    public String key() {
        return label + ".ps-per-" + unit.label();
    }

    /** @return every item, in declaration order (a shared array: do not modify) */
    static CostItem[] all() {
        return ALL;
    }
}
