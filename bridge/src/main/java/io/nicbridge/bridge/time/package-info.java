/**
 * Time for code that may depend on bridge only (protocol cores and their runners):
 * {@link io.nicbridge.bridge.time.Clock}, {@link io.nicbridge.bridge.time.Timer} (arm at/after, cancel,
 * armed?), {@link io.nicbridge.bridge.time.Scheduler} (makes timers; virtual or real),
 * {@link io.nicbridge.bridge.time.VirtualScheduler} (a deterministic discrete-event scheduler the caller drives;
 * sim-hardware's {@code VirtualTimeBase} implements it) and {@link io.nicbridge.bridge.time.EventLoop} (real
 * time, timers fire on the loop's own thread).
 */
package io.nicbridge.bridge.time;
