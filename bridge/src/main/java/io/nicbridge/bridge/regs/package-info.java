/**
 * Register windows: {@link io.nicbridge.bridge.regs.Registers} is the single path for host accesses
 * with side effects (dispatched once to the backend's {@link io.nicbridge.bridge.regs.RegisterSideEffects});
 * {@link io.nicbridge.bridge.regs.WordAccess} reads and writes plain memory windows (board RAM, queues)
 * in a card's byte order with explicit access modes.
 */
package io.nicbridge.bridge.regs;
