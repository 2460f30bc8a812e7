/**
 * dynalease-fake for JavaScript and TypeScript: an in-memory DynamoDB server for tests, started
 * by {@link startFake}, with `@aws-sdk/client-dynamodb` clients for it and its clock, faults,
 * tables and request log in the test's hands.
 *
 * ```ts
 * import { startFake } from "dynalease-fake";
 * const fake = await startFake({ clock: "manual" });
 * await fake.advance("2days"); // time-to-live deletions made before it resolves
 * await fake.stop();
 * ```
 *
 * For vitest and jest, `dynalease-fake/vitest` and `dynalease-fake/jest` give each worker a server
 * of its own, reset before each test.
 */

export { BinaryNotFoundError, binaryPath, ENVIRONMENT_VARIABLE } from "./binary";
export { ControlError } from "./control";
export {
  connectFake,
  CREDENTIALS,
  DynaleaseFake,
  ignoreServerClock,
  instantRetries,
  REGION,
  startFake,
  type Duration,
  type FakeAddress,
  type Instant,
  type LoggedRequest,
  type Snapshot,
} from "./fake";
export {
  FAULT_KINDS,
  type DelayFault,
  type ErrorFault,
  type FaultKind,
  type FaultRuleState,
  type FaultTarget,
  type SimpleFaultKind,
  type StaleReadFault,
  type UnprocessedFault,
} from "./faults";
export type { FakeOptions } from "./options";
export { ServerError, ServerStartError } from "./process";
