/** {@code nic fabric run} and {@code nic fabric sweep}: the MPP interconnect simulator's command line. */
package io.nicbridge.bench.cli.fabric;
