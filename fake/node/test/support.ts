/** Shared by the package's tests: whether a process is alive, and waiting until one is gone. */

import { readFileSync } from "node:fs";
import * as path from "node:path";

/** Whether process `pid` runs; one that exited and waits to be reaped does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * Polls until process `pid` has exited; throws if it still runs after `withinMs` (a safety net
 * for a broken test, not a timing claim).
 */
export async function waitUntilGone(pid: number, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The repository's shared list of the control API (fake/control-api.json). */
export function controlApiList(): {
  Endpoints: { Method: string; Path: string }[];
  FaultKinds: { Fault: string; Needs: string[]; May?: string[] }[];
  RuleMembers: string[];
} {
  const repository = process.env.DYNALEASE_FAKE_REPOSITORY;
  if (!repository) throw new Error("$DYNALEASE_FAKE_REPOSITORY names the repository whose fake/control-api.json the tests read");
  return JSON.parse(readFileSync(path.join(repository, "fake", "control-api.json"), "utf8"));
}
