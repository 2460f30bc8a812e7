package dev.dynalease.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package speaks the whole control API, as the repository's shared list ({@code
 * fake/control-api.json}) names it: every endpoint is reached by a method of DynaleaseFake, and
 * its fault kinds are the list's, each needing what the list says.
 */
class ControlApiListTest {
    static JsonNode list() throws IOException {
        Path file = Path.of(System.getProperty("dynalease.fake.controlApi", "../control-api.json"));
        return new ObjectMapper().readTree(Files.readString(file));
    }

    @Test
    void everyEndpointOfTheSharedListIsReachedByAMethodAndNoOther(@TempDir Path folder) throws IOException {
        Set<String> reached = new TreeSet<>();
        FakeOptions options = FakeOptions.defaults().manualClock()
                .startTime(Instant.parse("2026-01-01T00:00:00Z")).data(folder.resolve("t.json"));
        try (DynaleaseFake fake = DynaleaseFake.start(options)) {
            fake.onControlRequest((method, path) ->
                    reached.add(method + " " + path.replaceAll("^faults/\\d+$", "faults/ID").replaceAll("\\?.*$", "")));
            fake.now();
            fake.isFrozen();
            fake.freeze();
            fake.run();
            fake.setTime(Instant.parse("2030-01-01T00:00:00Z"));
            fake.advance("2days");
            fake.faults();
            fake.removeFault(fake.addFault(FaultRule.of(Fault.THROTTLE).operation("PutItem").times(1)));
            fake.clearFaults();
            fake.reset();
            fake.load(fake.snapshot());
            fake.save();
            fake.requests(5);
            fake.clearRequests();
        }
        Set<String> listed = new TreeSet<>();
        list().path("Endpoints").forEach(endpoint -> listed.add(endpoint.path("Method").asText() + " " + endpoint.path("Path").asText()));
        assertEquals(listed, reached);
    }

    @Test
    void aRuleNarrowedByEveryMemberTheSharedListNamesIsTaken() throws IOException {
        FaultRule rule = FaultRule.of(Fault.THROTTLE);
        for (JsonNode member : list().path("RuleMembers")) {
            switch (member.asText()) {
                case "Operation": rule.operation("PutItem"); break;
                case "Table": rule.table("Carts"); break;
                case "Account": rule.account("111122223333"); break;
                case "Region": rule.region("eu-west-1"); break;
                case "Probability": rule.probability(0.5); break;
                case "Times": rule.times(1); break;
                case "After": rule.after(1); break;
                default: throw new AssertionError("a rule member the package does not know: " + member.asText());
            }
        }
        try (DynaleaseFake fake = DynaleaseFake.start()) {
            long id = fake.addFault(rule);
            JsonNode added = fake.faults().get(0);
            assertEquals(id, added.path("Id").asLong());
            assertEquals("111122223333", added.path("Account").asText());
            assertEquals("eu-west-1", added.path("Region").asText());
        }
    }

    @Test
    void theFaultKindsAreTheSharedListsEachNeedingWhatTheListSays() throws IOException {
        List<String> listed = new ArrayList<>();
        List<String> ours = new ArrayList<>();
        for (Fault fault : Fault.values()) {
            ours.add(fault.controlName());
        }
        try (DynaleaseFake fake = DynaleaseFake.start()) {
            for (JsonNode kind : list().path("FaultKinds")) {
                String name = kind.path("Fault").asText();
                listed.add(name);
                Fault fault = Fault.valueOf(name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT));
                List<String> needs = new ArrayList<>();
                kind.path("Needs").forEach(member -> needs.add(member.asText()));
                assertEquals(needs, fault.needs(), name);
                FaultRule bare = FaultRule.of(fault).operation("GetItem").times(1);
                if (!needs.isEmpty()) {
                    IllegalStateException lacking = assertThrows(IllegalStateException.class, bare::toControl);
                    assertEquals("a " + name + " fault needs " + needs.get(0), lacking.getMessage());
                }
                FaultRule rule = FaultRule.of(fault).operation("GetItem").times(1);
                for (String member : needs) {
                    switch (member) {
                        case "DelayMs": rule.delayMs(1); break;
                        case "Code": rule.code("AccessDeniedException").message("no").status(403); break;
                        case "Processed": rule.processed(1); break;
                        case "MaxLagMs": rule.maxLagMs(1); break;
                        default: throw new AssertionError("a member the package does not know: " + member);
                    }
                }
                assertTrue(fake.addFault(rule) > 0, name);
            }
            List<String> added = new ArrayList<>();
            fake.faults().forEach(rule -> added.add(rule.path("Fault").asText()));
            assertEquals(listed, added);
        }
        assertEquals(listed, ours);
    }
}
