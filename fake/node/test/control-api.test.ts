/**
 * The package speaks the whole control API, as the repository's shared list names it: every
 * endpoint is reached by a method of DynaleaseFake, and its fault kinds are the list's, each
 * needing what the list says.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

import { FAULT_KINDS, startFake, type DynaleaseFake } from "dynalease-fake";
import { afterAll, beforeAll, expect, test } from "vitest";

import { controlApiList } from "./support";

const folder = mkdtempSync(path.join(tmpdir(), "dynalease-fake-node-api-"));
let server: DynaleaseFake;

beforeAll(async () => {
  server = await startFake({ clock: "manual", startTime: "2026-01-01T00:00:00Z", data: path.join(folder, "t.json") });
});

afterAll(async () => {
  await server.stop();
  rmSync(folder, { recursive: true, force: true });
});

test("every endpoint of the shared list is reached by a method, and no other", async () => {
  const reached = new Set<string>();
  server.controlConnection.onRequest(({ method, path }) => {
    reached.add(`${method} ${path.replace(/^faults\/\d+$/, "faults/ID").replace(/\?.*$/, "")}`);
  });

  await server.now();
  await server.isFrozen();
  await server.freeze();
  await server.run();
  await server.setTime("2030-01-01T00:00:00Z");
  await server.advance("2days");
  await server.faults();
  const id = await server.addFault("Throttle", { operation: "PutItem", times: 1 });
  await server.removeFault(id);
  await server.clearFaults();
  await server.reset();
  const saved = await server.snapshot();
  await server.load(saved);
  await server.save();
  await server.requests(5);
  await server.clearRequests();

  const listed = controlApiList().Endpoints.map((endpoint) => `${endpoint.Method} ${endpoint.Path}`);
  expect([...reached].sort()).toEqual([...listed].sort());
});

test("the fault kinds are the shared list's, each needing what the list says", async () => {
  const list = controlApiList().FaultKinds;
  expect(FAULT_KINDS).toEqual(list.map((kind) => kind.Fault));
  const lowered = (member: string) => member.charAt(0).toLowerCase() + member.slice(1);
  const value = (member: string) => (member === "Code" ? "AccessDeniedException" : member === "Message" ? "no" : member === "Status" ? 403 : 1);
  for (const kind of list) {
    const options: Record<string, unknown> = { operation: "GetItem", times: 1 };
    for (const member of [...kind.Needs, ...(kind.May ?? [])]) options[lowered(member)] = value(member);
    const add = server.addFault as (kind: string, options: object) => Promise<number>;
    expect(await add.call(server, kind.Fault, options)).toBeGreaterThan(0);
    for (const member of kind.Needs) {
      const lacking = { ...options, [lowered(member)]: undefined };
      await expect(add.call(server, kind.Fault, lacking)).rejects.toThrow(`a ${kind.Fault} fault needs ${lowered(member)}`);
    }
  }
  const rules = await server.faults();
  expect(rules.map((rule) => rule.Fault)).toEqual(list.map((kind) => kind.Fault));
  await server.clearFaults();
});

test("a rule narrowed by every member the shared list names is taken", async () => {
  const values: Record<string, unknown> = {
    Operation: "PutItem",
    Table: "Carts",
    Account: "111122223333",
    Region: "eu-west-1",
    Probability: 0.5,
    Times: 1,
    After: 1,
  };
  const options: Record<string, unknown> = {};
  for (const member of controlApiList().RuleMembers) {
    expect(values, `a rule member the test does not know: ${member}`).toHaveProperty(member);
    options[member.charAt(0).toLowerCase() + member.slice(1)] = values[member];
  }
  const id = await server.addFault("Throttle", options);
  const [rule] = (await server.faults()).filter((each) => each.Id === id);
  for (const member of controlApiList().RuleMembers) {
    if (member !== "Times") expect(rule[member], member).toEqual(values[member]);
  }
  await server.clearFaults();
});
