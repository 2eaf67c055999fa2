/**
 * {@code nic calibrate}: the JMH measurements behind the {@code measured} host cost table
 * ({@link io.nicbridge.bench.calibrate.HostCostCalibrationBench}) and the command that runs them and writes the table
 * ({@link io.nicbridge.bench.calibrate.CalibrateCommand}).
 */
package io.nicbridge.bench.calibrate;
