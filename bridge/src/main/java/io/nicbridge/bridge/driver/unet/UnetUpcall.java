package io.nicbridge.bridge.driver.unet;

/**
 * What an endpoint runs for each message when the card signals it (paper 3.1: "the upcall is used by U-Net to
 * signal that the state of the receive queue satisfies a specific condition"). One upcall consumes every message
 * pending in the receive queue, calling this once per message; the dispatcher releases each descriptor (and
 * recycles its buffers) after the call returns, so the handler must copy out what it keeps.
 */
@FunctionalInterface
public interface UnetUpcall {
    /**
     * @param endpoint   the endpoint the message arrived on
     * @param descriptor the received descriptor, valid for the duration of the call (read it with the endpoint's
     *                   accessors: {@link UnetEndpoint#length}, {@link UnetEndpoint#copyTo}, ...)
     */
    void onMessage(UnetEndpoint endpoint, long descriptor);
}
