/**
 * One server per worker of a test run, shared by the helpers for vitest and jest: the run's global
 * setup starts them in the runner's main process (so they stop when it exits, even killed) and
 * names them to the workers in the environment; each worker connects to its own, so parallel
 * workers never meet, and resets it before each test.
 */

import { availableParallelism } from "node:os";

import { connectFake, startFake, type DynaleaseFake, type FakeAddress } from "./fake";
import type { FakeOptions } from "./options";

/** Set by the global setup for the workers: `{"1": {"endpoint": ..., "manualStart": ...}, ...}`. */
export const WORKERS_VARIABLE = "DYNALEASE_FAKE_WORKERS";
/** Set by the configuration helpers for the global setup: the options of the run's servers, as JSON. */
export const OPTIONS_VARIABLE = "DYNALEASE_FAKE_OPTIONS";

/** The options of the run's servers, as the configuration named them (`{}` by default). */
export function configuredOptions(): FakeOptions {
  const text = process.env[OPTIONS_VARIABLE];
  if (!text) return {};
  try {
    return JSON.parse(text) as FakeOptions;
  } catch (error) {
    throw new Error(`$${OPTIONS_VARIABLE} is not JSON: ${(error as Error).message}: ${text}`);
  }
}

/** Keeps the options for the run's global setup (called from the configuration, in the main process). */
export function configureOptions(options: FakeOptions): void {
  process.env[OPTIONS_VARIABLE] = JSON.stringify(options);
}

/**
 * Starts `count` servers with the configured options (at least one; by default one per core),
 * names them in the environment for the workers, and resolves to them.
 */
export async function startWorkerServers(count?: number): Promise<DynaleaseFake[]> {
  const options = configuredOptions();
  const wanted = Math.max(1, Math.trunc(count ?? availableParallelism()));
  const started = await Promise.allSettled(Array.from({ length: wanted }, () => startFake(options)));
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.allSettled(servers.map((server) => server.stop()));
    throw (failure as PromiseRejectedResult).reason;
  }
  const named: Record<string, FakeAddress> = {};
  servers.forEach((server, index) => {
    named[String(index + 1)] = { endpoint: server.endpoint, manualStart: server.manualStartMillis, pid: server.pid };
  });
  process.env[WORKERS_VARIABLE] = JSON.stringify(named);
  return servers;
}

/** Stops the servers the global setup started. */
export async function stopWorkerServers(servers: DynaleaseFake[]): Promise<void> {
  delete process.env[WORKERS_VARIABLE];
  const stopped = await Promise.allSettled(servers.map((server) => server.stop()));
  const failure = stopped.find((result) => result.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

/** The address of the server of worker `id`, if the global setup started one for it. */
export function workerAddress(id: string | undefined): FakeAddress | undefined {
  const text = process.env[WORKERS_VARIABLE];
  if (!text || !id) return undefined;
  return (JSON.parse(text) as Record<string, FakeAddress>)[id];
}

interface Current {
  fake?: DynaleaseFake;
  owned: boolean;
}

const KEY = Symbol.for("dynalease-fake.current");

function current(): Current {
  const holder = globalThis as unknown as Record<symbol, Current | undefined>;
  holder[KEY] ??= { owned: false };
  return holder[KEY];
}

/**
 * The fake of this worker: connected to the server the global setup started for worker `id`; or,
 * without one (no global setup, or more workers than servers), a server started for this worker.
 */
export async function openWorkerFake(id: string | undefined): Promise<DynaleaseFake> {
  const state = current();
  if (state.fake) return state.fake;
  const address = workerAddress(id);
  state.fake = address ? connectFake(address) : await startFake(configuredOptions());
  state.owned = !address;
  return state.fake;
}

/** Lets go of this worker's fake: stops a server the worker started, closes a connection. */
export async function closeWorkerFake(): Promise<void> {
  const state = current();
  const fake = state.fake;
  state.fake = undefined;
  await fake?.stop();
}

/** This worker's fake, for a test. */
export function workerFake(): DynaleaseFake {
  const fake = current().fake;
  if (!fake) {
    throw new Error(
      "no dynalease-fake server for this test: add the package's setup file to the test runner's configuration " +
        "(setupFiles: ['dynalease-fake/vitest/setup'] for vitest, setupFilesAfterEnv: ['dynalease-fake/jest/setup'] " +
        "for jest), or use startFake() yourself",
    );
  }
  return fake;
}
