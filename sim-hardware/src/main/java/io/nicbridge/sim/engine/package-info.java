/**
 * How emulated cards are driven, and the time they see.
 *
 * <p>A card model is a {@link io.nicbridge.sim.engine.DeviceModel}; it attaches to a
 * {@link io.nicbridge.sim.engine.DeviceEngine} and gets a {@link io.nicbridge.sim.engine.WorkSignal} to kick
 * when it has work (a doorbell write, a frame in its {@link io.nicbridge.sim.engine.FrameFifo}). The engine
 * picks the thread and the moment:
 *
 * <table>
 *   <caption>Engines</caption>
 *   <tr><th>mode</th><th>class</th><th>service() runs</th><th>timers fire</th></tr>
 *   <tr><td>inline</td><td>{@link io.nicbridge.sim.engine.InlineEngine}</td>
 *       <td>on the kicking thread, behind a work-combining gate</td>
 *       <td>after any service and on {@code poll()} / {@code pollTimers()}</td></tr>
 *   <tr><td>threaded</td><td>{@link io.nicbridge.sim.engine.ThreadedEngine}</td>
 *       <td>on the model's own engine thread, idling with an {@link io.nicbridge.bridge.idle.IdleStrategy}</td>
 *       <td>on the engine threads, every pass</td></tr>
 *   <tr><td>virtual</td><td>{@link io.nicbridge.sim.engine.VirtualTimeEngine}</td>
 *       <td>as an event at the current simulated time</td>
 *       <td>as events at their simulated deadline</td></tr>
 * </table>
 *
 * <p>{@link io.nicbridge.sim.engine.Engines#create(String, long, String)} builds one from names. Cards, wires
 * and application processes take their clock and timers from the engine's
 * {@link io.nicbridge.sim.engine.TimeBase}, never from {@link System#nanoTime()} directly, so that the same
 * code runs in real and in virtual time.
 */
package io.nicbridge.sim.engine;
