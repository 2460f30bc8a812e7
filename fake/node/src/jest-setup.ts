/**
 * jest's setup file (`setupFilesAfterEnv: ["dynalease-fake/jest/setup"]`): each test file gets its
 * worker's server (or, without the global setup, a server of its own), reset before each test.
 */

import { closeWorkerFake, openWorkerFake, workerFake } from "./workers";

// jest's own globals, present in a setup file run after the environment.
type Hook = (run: () => Promise<void>) => void;
const hooks = globalThis as unknown as { beforeAll: Hook; beforeEach: Hook; afterAll: Hook };

hooks.beforeAll(async () => {
  await openWorkerFake(process.env.JEST_WORKER_ID);
});

hooks.beforeEach(async () => {
  await workerFake().reset();
});

hooks.afterAll(async () => {
  await closeWorkerFake();
});
