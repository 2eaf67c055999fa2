/**
 * U-Net Active Messages (U-Net paper section 5): the Generic Active Messages 1.1 interface as a sans-I/O core
 * ({@link io.nicbridge.protocols.am.AmCore}) on the go-back-N channel, Split-C's remote store on it
 * ({@link io.nicbridge.protocols.am.SplitCStore}) and a {@link io.nicbridge.protocols.core.MessageCore} view for the
 * simulation tester ({@link io.nicbridge.protocols.am.AmMessageChannel}). The wire format is
 * {@link io.nicbridge.protocols.am.AmWire}'s.
 */
package io.nicbridge.protocols.am;
