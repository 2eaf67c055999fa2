/** {@code nic simtest}: deterministic simulation testing of protocol cores from the command line. */
package io.nicbridge.bench.simtest;
