/**
 * Test helpers shared by more than one test package: time bases a test drives by hand, frame builders and checkers,
 * allocation counting, a DMA port that records a card's accesses to host memory ({@link RecordingDmaView}). World
 * builders live in main code ({@code io.nicbridge.sim.testbed}); a helper used by one test package only stays beside
 * its tests (the card harnesses that drive one model's registers, the backend conformance pairs).
 */
package io.nicbridge.sim.testing;
