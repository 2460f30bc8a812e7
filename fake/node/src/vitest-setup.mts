/**
 * vitest's setup file (`setupFiles: ["dynalease-fake/vitest/setup"]`): each test file gets its
 * worker's server (or, without the global setup, a server of its own), reset before each test.
 */

import { afterAll, beforeAll, beforeEach } from "vitest";

import { closeWorkerFake, openWorkerFake, workerFake } from "./workers.js";

beforeAll(async () => {
  await openWorkerFake(process.env.VITEST_POOL_ID);
});

beforeEach(async () => {
  await workerFake().reset();
});

afterAll(async () => {
  await closeWorkerFake();
});
