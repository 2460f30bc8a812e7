/** jest's global teardown (`globalTeardown: "dynalease-fake/jest/global-teardown"`): stops the servers. */

import type { DynaleaseFake } from "./fake";
import { SERVERS } from "./jest-global-setup";
import { stopWorkerServers } from "./workers";

/** Stops the servers the global setup started. */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as unknown as Record<symbol, DynaleaseFake[] | undefined>;
  const servers = holder[SERVERS] ?? [];
  holder[SERVERS] = undefined;
  await stopWorkerServers(servers);
}
