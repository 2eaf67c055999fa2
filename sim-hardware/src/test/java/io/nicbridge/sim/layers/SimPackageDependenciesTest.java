package io.nicbridge.sim.layers;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The emulator's packages depend on each other in one direction only, checked on the compiled main classes:
 * <pre>
 *   sim.emu (the emu backend)          constructs cards through
 *     sim.testbed (the testbeds)       constructs cards of
 *       sim.dec21140, sim.sba200, sim.medusa (the cards)   extend
 *         sim.card (EmulatedCard)      runs on
 *           sim.engine
 * </pre>
 * The cards once extended a base class in sim.emu while sim.emu constructed them: a package cycle. These rules fail
 * if one comes back.
 */
class SimPackageDependenciesTest {
    private static final String[] CARD_EMULATOR = {"..sim.emu..", "..sim.testbed..", "..sim.card..",
        "..sim.dec21140..", "..sim.sba200..", "..sim.medusa..", "..sim.engine..", "..sim.ethernet..", "..sim.atm..",
        "..sim.fddi..", "..sim.fault..", "..sim.capture.."};
    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.nicbridge.sim");
    }

    @Test
    void noCardPackageDependsOnTheCodeThatConstructsCards() {
        noClasses().that().resideInAnyPackage("..sim.card..", "..sim.dec21140..", "..sim.sba200..", "..sim.medusa..")
                .should().dependOnClassesThat().resideInAnyPackage("..sim.emu..", "..sim.testbed..")
                .because("the emu backend and the testbeds build cards; a card depending on them is a package cycle")
                .check(main);
    }

    @Test
    void theTestbedsDoNotDependOnTheEmuBackend() {
        noClasses().that().resideInAPackage("..sim.testbed..")
                .should().dependOnClassesThat().resideInAPackage("..sim.emu..")
                .because("the emu backend opens cards in testbeds, not the other way round")
                .check(main);
    }

    /**
     * The card emulator's packages (the MPP fabric simulator, {@code sim.fabric} and {@code sim.traffic}, is a world
     * of its own and left out).
     */
    @Test
    void theCardEmulatorPackagesAreFreeOfCycles() {
        slices().matching("io.nicbridge.sim.(*)..").should().beFreeOfCycles()
                .check(main.that(resideInAnyPackage(CARD_EMULATOR)));
    }
}
