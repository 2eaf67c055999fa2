package io.nicbridge.bridge.spi;

import java.util.List;

/** A test-only backend that is never available here, to test how that is reported. */
public final class UnavailableTestProvider implements BackendProvider {
    @Override
    public String scheme() {
        return "rawtest";
    }

    @Override
    public List<String> cards() {
        return List.of("dec21140");
    }

    @Override
    public Availability availability() {
        return Availability.unavailable("needs CAP_NET_RAW");
    }

    @Override
    public List<String> exampleSpecs() {
        return List.of("rawtest:afpacket?if=<iface>&card=dec21140");
    }

    @Override
    public Card open(DeviceSpec spec) {
        throw new AssertionError("Backends.open must not call an unavailable backend");
    }
}
