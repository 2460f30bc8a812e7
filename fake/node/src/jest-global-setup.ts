/**
 * jest's global setup (`globalSetup: "dynalease-fake/jest/global-setup"`): one server for each
 * worker of the run, started in jest's main process; `dynalease-fake/jest/global-teardown` stops
 * them. When that process dies, the servers see their stdin close and stop.
 */

import type { DynaleaseFake } from "./fake";
import { startWorkerServers } from "./workers";

/** Where the global teardown finds the servers (jest shares globals between the two). */
export const SERVERS = Symbol.for("dynalease-fake.jest-servers");

/** Starts a server for each of the run's workers. */
export default async function globalSetup(globalConfig?: { maxWorkers?: number }): Promise<void> {
  const servers = await startWorkerServers(globalConfig?.maxWorkers);
  (globalThis as unknown as Record<symbol, DynaleaseFake[]>)[SERVERS] = servers;
}
