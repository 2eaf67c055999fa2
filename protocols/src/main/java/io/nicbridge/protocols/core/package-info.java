/**
 * What every protocol core is: {@link io.nicbridge.protocols.core.ProtocolCore} (a sans-I/O state machine over a
 * bridge {@link io.nicbridge.bridge.link.Link}), the {@link io.nicbridge.protocols.core.Guarantee}s it declares, and
 * the application API of message cores ({@link io.nicbridge.protocols.core.MessageChannel}).
 */
package io.nicbridge.protocols.core;
