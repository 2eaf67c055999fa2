/**
 * The go-back-N reliable channel (window w, 4w buffers per peer, explicit acks: the flow control of U-Net Active
 * Messages, GAM 1.1 style): {@link io.nicbridge.protocols.gbn.GoBackNCore}, its frame
 * {@link io.nicbridge.protocols.gbn.GoBackNWire}, {@link io.nicbridge.protocols.gbn.GoBackNConfig} and
 * {@link io.nicbridge.protocols.gbn.GoBackNCounters}.
 */
package io.nicbridge.protocols.gbn;
