package io.nicbridge.protocols.dst;

import io.nicbridge.protocols.careful.CarefulCore;
import io.nicbridge.protocols.cstar.ForwardingCStarNetwork;

/**
 * Negative control: the careful core with its violation count hidden (always 0) and no frame counts, so it promises
 * to report broken assumptions and never does. The harness must catch it on the first schedule that breaks one.
 */
final class HidingCareful extends ForwardingCStarNetwork<CarefulCore> {
    HidingCareful(CarefulCore inner) {
        super(inner);
    }

    @Override
    public long violations() {
        return 0;
    }
}
