/**
 * The careful-protocols paper's ring experiments (latency test: Table 1; throughput test: Table 2) on emulated
 * Medusa cards and the timed-token FDDI ring, in virtual time, behind {@code nic medusa latency} and
 * {@code nic medusa throughput}. The paper's figures are quoted as data ({@code PaperTables}); every
 * simulated figure is computed in the run that prints it.
 */
package io.nicbridge.bench.medusa;
