/**
 * The jest helpers: the configuration that gives each worker a server of its own, started once for
 * the run and reset before each test, and the accessor a test reads it with.
 *
 * ```js
 * // jest.config.js
 * const { dynaleaseFakeJestConfig } = require("dynalease-fake/jest");
 * module.exports = { ...dynaleaseFakeJestConfig({ clock: "manual" }) };
 *
 * // a test
 * const { fake } = require("dynalease-fake/jest");
 * test("...", async () => { await fake().client.send(...); });
 * ```
 */

import type { DynaleaseFake } from "./fake";
import type { FakeOptions } from "./options";
import { configureOptions, workerFake } from "./workers";

/** What {@link dynaleaseFakeJestConfig} adds to jest's configuration. */
export interface JestFakeConfig {
  globalSetup: string;
  globalTeardown: string;
  setupFilesAfterEnv: string[];
}

/**
 * jest's options for a server per worker with `options` (those of startFake): the global setup
 * starts one server for each worker, the global teardown stops them, and the setup file connects
 * each test file to its worker's server and resets it before each test.
 */
export function dynaleaseFakeJestConfig(options: FakeOptions = {}): JestFakeConfig {
  configureOptions(options);
  return {
    globalSetup: require.resolve("./jest-global-setup.js"),
    globalTeardown: require.resolve("./jest-global-teardown.js"),
    setupFilesAfterEnv: [require.resolve("./jest-setup.js")],
  };
}

/** This worker's fake, reset before each test. */
export function fake(): DynaleaseFake {
  return workerFake();
}
