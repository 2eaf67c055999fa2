/**
 * The device SPI: a {@link io.nicbridge.bridge.spi.Card} is registers + DMA space + interrupt line;
 * {@link io.nicbridge.bridge.spi.BackendProvider}s (found with {@link java.util.ServiceLoader}) open
 * cards from {@link io.nicbridge.bridge.spi.DeviceSpec} strings such as {@code emu:dec21140}, and
 * {@link io.nicbridge.bridge.spi.Backends} is the registry the CLI and tests use.
 */
package io.nicbridge.bridge.spi;
