/**
 * The vitest helpers: the configuration that gives each worker a server of its own, started once
 * for the run and reset before each test, and the accessor a test reads it with.
 *
 * ```ts
 * // vitest.config.ts
 * import { defineConfig } from "vitest/config";
 * import { dynaleaseFakeConfig } from "dynalease-fake/vitest";
 * export default defineConfig({ test: { ...dynaleaseFakeConfig({ clock: "manual" }) } });
 *
 * // a test
 * import { fake } from "dynalease-fake/vitest";
 * test("...", async () => { await fake().client.send(...); });
 * ```
 */

import type { DynaleaseFake } from "./fake";
import type { FakeOptions } from "./options";
import { configureOptions, workerFake } from "./workers";

/** What {@link dynaleaseFakeConfig} adds to vitest's `test` configuration. */
export interface VitestFakeConfig {
  globalSetup: string[];
  setupFiles: string[];
}

/**
 * vitest's `test` options for a server per worker with `options` (those of startFake): the global
 * setup starts one server for each worker of the run, and the setup file connects each test file
 * to its worker's server and resets it before each test. Spread it into `test`; to keep global
 * setups or setup files of your own, put them beside these.
 */
export function dynaleaseFakeConfig(options: FakeOptions = {}): VitestFakeConfig {
  configureOptions(options);
  return {
    globalSetup: [require.resolve("./vitest-global-setup.js")],
    setupFiles: [require.resolve("./vitest-setup.mjs")],
  };
}

/** This worker's fake, reset before each test. */
export function fake(): DynaleaseFake {
  return workerFake();
}
