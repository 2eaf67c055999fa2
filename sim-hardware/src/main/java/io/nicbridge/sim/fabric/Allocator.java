package io.nicbridge.sim.fabric;

/**
 * How a router matches its input VCs to output VCs (VC allocation) and to output ports (switch allocation). The
 * config key is {@code allocator} (BookSim's {@code vc_allocator} / {@code sw_allocator} name one each; here they
 * are chosen together because the legacy policy interleaves both stages).
 */
public enum Allocator {
    /**
     * BookSim's {@code separable_input_first} with {@code arbiter_type = round_robin}, for both VC and switch
     * allocation ({@link SeparableVcAllocator}, {@link SeparableSwitchAllocator}): each input chooses one request,
     * each output grants one of the inputs that chose it, and every round-robin pointer moves past the requester
     * whose grant was used (iSLIP-style), so no requester that keeps asking waits for more than one turn of any
     * arbiter. The default.
     */
    SEPARABLE_INPUT_FIRST("separable_input_first"),
    /**
     * The fabric's original policy, kept to show its pathology: inputs are visited in an order that rotates by one
     * port every cycle whatever was granted, and the first input to ask for a free output VC or a free output
     * port takes it. On periodic traffic that priority phase-locks with packet timing and starves flows (an
     * 8-node ring under tornado at full load: five of eight destinations receive nothing).
     */
    ROTATING_PRIORITY("rotating_priority");

    private final String configName;

    Allocator(String configName) {
        this.configName = configName;
    }

    /** The value of the config key {@code allocator}. */
    public String configName() {
        return configName;
    }

    /** Parses a config value ({@code separable_input_first} or {@code rotating_priority}). */
    public static Allocator parse(String value) {
        for (Allocator a : values()) {
            if (a.configName.equalsIgnoreCase(value)) {
                return a;
            }
        }
        throw new IllegalArgumentException("allocator must be separable_input_first or rotating_priority, got '"
            + value + "'");
    }
}
