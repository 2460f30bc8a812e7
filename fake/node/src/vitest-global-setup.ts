/**
 * vitest's global setup (`globalSetup: ["dynalease-fake/vitest/global-setup"]`): one server for
 * each worker of the run, started in vitest's main process before the workers and stopped after
 * them. When that process dies, the servers see their stdin close and stop.
 */

import { startWorkerServers, stopWorkerServers } from "./workers";

/** What this setup reads of vitest's project: how many workers the run has. */
interface Project {
  globalConfig?: { maxWorkers?: number };
  config?: { maxWorkers?: number };
}

/** Starts a server for each of the run's workers; resolves to the teardown that stops them. */
async function setup(project?: Project): Promise<() => Promise<void>> {
  const servers = await startWorkerServers(project?.globalConfig?.maxWorkers ?? project?.config?.maxWorkers);
  return () => stopWorkerServers(servers);
}

// The module is the function, as vitest reads a global setup's default export.
export = setup;
