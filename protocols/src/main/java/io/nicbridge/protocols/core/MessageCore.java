package io.nicbridge.protocols.core;

/** A core that is a message channel: what the simulation tester and the runners' applications drive. */
public interface MessageCore extends ProtocolCore, MessageChannel {
}
