package io.nicbridge.bridge.driver.unet;

import static io.nicbridge.contract.Sba200Unet.*;

import io.nicbridge.bridge.regs.Registers;

/**
 * The only register writes a process may make: the three user-written index words of its OWN endpoint page
 * ({@code sq_prod}, {@code fq_prod}, {@code rq_cons}). This is the emulation of "the endpoint page is mapped into
 * exactly one process": the process holds a 4 KiB slice of board RAM (its page) plus this object, never the
 * board RAM window itself, so it cannot reach the command queue, the VCI table or another endpoint's page.
 *
 * <p>Each ring stores the index with release through {@link Registers}: on a card model that hooks the word it is
 * the doorbell that models the i960 noticing the new index (its poll); on a card that really polls, it is just the
 * release store. The queue views have already written the same value into the page; the store here repeats it so
 * the backend sees the access.
 */
final class EndpointDoorbell {
    private final Registers ram;
    private final int sqProd;
    private final int fqProd;
    private final int rqCons;

    EndpointDoorbell(Registers ram, int endpoint) {
        this.ram = ram;
        int page = EP_PAGE_BASE + endpoint * EP_PAGE_SIZE;
        this.sqProd = page + EPCB_SQ_PROD_OFS;
        this.fqProd = page + EPCB_FQ_PROD_OFS;
        this.rqCons = page + EPCB_RQ_CONS_OFS;
    }

    void send(int producerIndex) {
        ram.writeRelease(sqProd, producerIndex);
    }

    void free(int producerIndex) {
        ram.writeRelease(fqProd, producerIndex);
    }

    void receive(int consumerIndex) {
        ram.writeRelease(rqCons, consumerIndex);
    }
}
