/**
 * `DynaleaseFake`: a running `dynalease-fake serve` (started by {@link startFake}, or connected
 * to by {@link connectFake}), its AWS SDK clients, and its clock, faults, tables and request log
 * steered through the control API.
 */

import * as fs from "node:fs/promises";
import { DynamoDBClient, type DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient, TranslateConfig } from "@aws-sdk/lib-dynamodb";
import { ConfiguredRetryStrategy } from "@smithy/util-retry";

import { binaryPath } from "./binary";
import { ControlConnection } from "./control";
import {
  faultRule,
  type DelayFault,
  type ErrorFault,
  type FaultRuleState,
  type FaultTarget,
  type SimpleFaultKind,
  type StaleReadFault,
  type UnprocessedFault,
} from "./faults";
import { ServerProcess } from "./process";
import { serveArguments, type FakeOptions } from "./options";

/** The region the package's clients use. */
export const REGION = "us-east-1";
/** The credentials the package's clients sign with (the server takes any). */
export const CREDENTIALS = { accessKeyId: "fake", secretAccessKey: "fake" } as const;

/** The control API's reading of the fake's clock. */
interface ClockReading {
  Time: string;
  EpochSeconds: number;
  EpochMillis: number;
  Frozen: boolean;
}

/** A span of time for {@link DynaleaseFake.advance}: seconds, a text such as `"2days"`, or parts. */
export type Duration =
  | number
  | string
  | { days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number };

/** A point in time: a `Date`, milliseconds since the epoch, or RFC 3339 text. */
export type Instant = Date | number | string;

/** One entry of the request log. */
export interface LoggedRequest {
  Time: string;
  Operation: string;
  Table: string | null;
  /** `OK` or the error code. */
  Outcome: string;
  Fault: string | null;
  /** For a read a `StaleRead` rule made stale: the instant it saw. */
  ReadAsOf?: string;
  [member: string]: unknown;
}

/** A snapshot: every table, as the control API's `GET snapshot` answers and `PUT snapshot` takes. */
export interface Snapshot {
  Version?: number;
  Tables: Record<string, unknown>[];
  [member: string]: unknown;
}

/**
 * An SDK retry strategy that retries at once: the SDK's default number of attempts (3), with no
 * wait between them, so that a test of a throttled request never sleeps.
 */
export function instantRetries(maxAttempts = 3): ConfiguredRetryStrategy {
  return new ConfiguredRetryStrategy(maxAttempts, () => 0);
}

/** What {@link ignoreServerClock} takes: any client of the AWS SDK for JavaScript v3. */
interface SdkClient {
  middlewareStack: {
    add(middleware: (next: any) => (args: any) => Promise<any>, options: { step: "deserialize"; priority: "low"; name: string }): void;
  };
}

/**
 * Makes a client of the AWS SDK for JavaScript v3 ignore the `Date` header of the fake's answers,
 * which carries the fake's clock. Otherwise the SDK takes a clock a test moved (or a manual clock
 * that real time has left behind by five minutes) for a skewed clock of its own, corrects its
 * signing time, and retries a failed request once more than it would against DynamoDB, whose
 * answers carry the real time. The clients of {@link DynaleaseFake} have it; a client your code
 * builds for the fake's endpoint can be given it too.
 */
export function ignoreServerClock<Client extends SdkClient>(client: Client): Client {
  client.middlewareStack.add(
    (next) => async (args) => {
      const output = await next(args);
      const headers = output?.response?.headers;
      if (headers) {
        delete headers.date;
        delete headers.Date;
      }
      return output;
    },
    // Below the deserializer, so that neither the answer nor an error carries the header upward.
    { step: "deserialize", priority: "low", name: "dynaleaseFakeIgnoreServerClock" },
  );
  return client;
}

/** A running fake server: where it is, its clients, and the control API. */
export class DynaleaseFake {
  private cachedClient?: DynamoDBClient;
  private cachedDocumentClient?: DynamoDBDocumentClient;

  /** @internal */
  constructor(
    /** The server's URL, such as `http://127.0.0.1:40123`, for any SDK's endpoint. */
    readonly endpoint: string,
    private readonly control: ControlConnection,
    /** Where a manual clock started (reset puts it back there); `null` for a real clock. */
    private readonly manualStart: number | null,
    private readonly process: ServerProcess | null,
    private readonly serverPid?: number,
  ) {}

  /** The server's process id (for a server another process started, as that process named it). */
  get pid(): number | undefined {
    return this.process?.child.pid ?? this.serverPid;
  }

  /** Where a manual clock started, in milliseconds since the epoch; `null` for a real clock. */
  get manualStartMillis(): number | null {
    return this.manualStart;
  }

  /** Everything the server has printed (for a server this process started). */
  get output(): string {
    return this.process?.output ?? "";
  }

  // Clients.

  /**
   * A DynamoDB client of `@aws-sdk/client-dynamodb` for this server: region us-east-1, dummy
   * credentials, and retries without waiting ({@link instantRetries}). One per fake.
   */
  get client(): DynamoDBClient {
    this.cachedClient ??= this.createClient();
    return this.cachedClient;
  }

  /** A new DynamoDB client for this server; `config` wins over the defaults of {@link client}. */
  createClient(config: DynamoDBClientConfig = {}): DynamoDBClient {
    const client = new DynamoDBClient({
      endpoint: this.endpoint,
      region: REGION,
      credentials: CREDENTIALS,
      retryStrategy: instantRetries(),
      ...config,
    });
    ignoreServerClock(client);
    return client;
  }

  /** The document client of `@aws-sdk/lib-dynamodb` over {@link client}. One per fake. */
  get documentClient(): DynamoDBDocumentClient {
    this.cachedDocumentClient ??= this.createDocumentClient();
    return this.cachedDocumentClient;
  }

  /** A new document client over {@link client} with `translateConfig` (marshalling options). */
  createDocumentClient(translateConfig?: TranslateConfig): DynamoDBDocumentClient {
    let library: typeof import("@aws-sdk/lib-dynamodb");
    try {
      library = require("@aws-sdk/lib-dynamodb");
    } catch {
      throw new Error(
        "documentClient needs @aws-sdk/lib-dynamodb, which is not installed: npm install --save-dev @aws-sdk/lib-dynamodb",
      );
    }
    return library.DynamoDBDocumentClient.from(this.client, translateConfig);
  }

  // The clock.

  /** The fake's time. */
  async now(): Promise<Date> {
    return reading(await this.control.request("GET", "clock"));
  }

  /** Whether the fake's clock stands still. */
  async isFrozen(): Promise<boolean> {
    return (await this.control.request<ClockReading>("GET", "clock")).Frozen;
  }

  /**
   * Moves the fake's clock forward: `advance(90)` (seconds), `advance("2days")`,
   * `advance({ hours: 1 })`. What fell due in between (time-to-live deletions, with their stream
   * records) is done before it resolves. Resolves to the new time.
   */
  async advance(by: Duration): Promise<Date> {
    return reading(await this.control.request("POST", "clock/advance", durationBody(by)));
  }

  /** Moves the fake's clock forward to `when` (it never goes back). Resolves to the new time. */
  async setTime(when: Instant): Promise<Date> {
    return reading(await this.control.request("POST", "clock/set", { EpochSeconds: epochMillis(when) / 1000 }));
  }

  /** Stops the fake's clock where it is; resolves to that time. */
  async freeze(): Promise<Date> {
    return reading(await this.control.request("POST", "clock/freeze"));
  }

  /** Lets the fake's clock run with real time from where it stands; resolves to that time. */
  async run(): Promise<Date> {
    return reading(await this.control.request("POST", "clock/resume"));
  }

  // Faults.

  /**
   * Adds a fault rule and resolves to its id: `addFault("Throttle", { operation: "UpdateItem",
   * times: 1 })`. The kinds are the control API's: `Throttle`
   * (ProvisionedThroughputExceededException), `ThrottlingException`, `InternalServerError`,
   * `LostResponse` (applied, its answer lost), `ResourceNotFound`, `Latency` and `SlowResponse`
   * (`delayMs`), `Error` (`code`, and `message` and `status`), `Unprocessed` (`processed`),
   * `StallReplication` (the writes of a global table stop reaching the replicas of the rule's
   * `region` until it is removed) and `StaleRead` (`maxLagMs`: eventually consistent reads see the
   * tables as they were up to that long ago).
   */
  async addFault(kind: SimpleFaultKind, options?: FaultTarget): Promise<number>;
  async addFault(kind: "Latency" | "SlowResponse", options: DelayFault): Promise<number>;
  async addFault(kind: "Error", options: ErrorFault): Promise<number>;
  async addFault(kind: "Unprocessed", options: UnprocessedFault): Promise<number>;
  async addFault(kind: "StaleRead", options: StaleReadFault): Promise<number>;
  async addFault(kind: string, options: object = {}): Promise<number> {
    const rule = faultRule(kind, options as Record<string, unknown>);
    return (await this.control.request<{ Id: number }>("POST", "faults", rule)).Id;
  }

  /** Removes one fault rule; rejects with a ControlError (404) if there is none of that id. */
  async removeFault(id: number): Promise<void> {
    await this.control.request("DELETE", `faults/${Math.trunc(id)}`);
  }

  /** Removes every fault rule; resolves to their ids. */
  async clearFaults(): Promise<number[]> {
    return (await this.control.request<{ Removed: number[] }>("DELETE", "faults")).Removed;
  }

  /** The fault rules, with `Matched` (requests it matched) and `Fired` (faults it gave). */
  async faults(): Promise<FaultRuleState[]> {
    return (await this.control.request<{ Rules: FaultRuleState[] }>("GET", "faults")).Rules;
  }

  // Tables.

  /**
   * Everything back to how a test wants to find it: every table gone, every fault rule removed,
   * the request log emptied, and a manual clock back at the time it started, standing still. A
   * real clock runs on.
   */
  async reset(): Promise<void> {
    if (this.manualStart !== null) {
      const start = { EpochSeconds: this.manualStart / 1000 };
      const answer = await this.control.request<{ Clock: ClockReading }>("POST", "reset", start);
      if (!answer.Clock.Frozen) {
        // The test let the clock run: stopped, then put back, so that it stands at its start.
        await this.control.request("POST", "clock/freeze");
        await this.control.request("POST", "reset", start);
      }
    } else {
      await this.control.request("POST", "reset");
    }
    await this.control.request("DELETE", "faults");
    await this.control.request("DELETE", "requests");
  }

  /** Every table, with its indexes, settings and items (what {@link load} and `data` take). */
  async snapshot(): Promise<Snapshot> {
    return this.control.request<Snapshot>("GET", "snapshot");
  }

  /**
   * Replaces every table with those of `snapshot` (an object, or the path of a JSON file), all at
   * once; resolves to their names. One that does not load changes nothing and rejects with a
   * ControlError naming the line, column and fault.
   */
  async load(snapshot: Snapshot | string): Promise<string[]> {
    const raw = typeof snapshot === "string" ? await fs.readFile(snapshot) : Buffer.from(JSON.stringify(snapshot));
    return (await this.control.request<{ Tables: string[] }>("PUT", "snapshot", { raw })).Tables;
  }

  /** Writes the tables to the `data` file now (a ControlError, 409, without one). */
  async save(): Promise<void> {
    await this.control.request("POST", "save");
  }

  // The request log.

  /** The request log, oldest first (the latest `limit` if given). */
  async requests(limit?: number): Promise<LoggedRequest[]> {
    const path = limit === undefined ? "requests" : `requests?limit=${Math.trunc(limit)}`;
    return (await this.control.request<{ Requests: LoggedRequest[] }>("GET", path)).Requests;
  }

  /** Empties the request log. */
  async clearRequests(): Promise<void> {
    await this.control.request("DELETE", "requests");
  }

  // The end.

  /**
   * Stops the server this process started, as SIGTERM does (requests in flight answered, the data
   * file written), and destroys the clients; rejects with a ServerError if it exited with an
   * error. For a server it connected to, closes the connection only.
   */
  async stop(): Promise<void> {
    this.cachedClient?.destroy();
    this.cachedClient = undefined;
    this.cachedDocumentClient = undefined;
    this.control.close();
    await this.process?.stop();
  }

  /** @internal the control connection, for the package's tests. */
  get controlConnection(): ControlConnection {
    return this.control;
  }
}

/**
 * Starts `dynalease-fake serve` on a free loopback port and resolves once it listens. Rejects
 * with a ServerStartError holding what the server printed if it does not start, and with a
 * BinaryNotFoundError on a platform this package carries no server for.
 *
 * ```ts
 * const fake = await startFake({ clock: "manual", startTime: "2026-01-01T00:00:00Z" });
 * await fake.client.send(new ListTablesCommand({}));
 * await fake.stop();
 * ```
 */
export async function startFake(options: FakeOptions = {}): Promise<DynaleaseFake> {
  const command = [options.binary ?? binaryPath(), ...serveArguments(options)];
  const server = await ServerProcess.start(command, options.startTimeoutMs ?? 30_000);
  try {
    const url = new URL(server.endpoint);
    const control = new ControlConnection(url.hostname, Number(url.port));
    let manualStart: number | null = null;
    if (options.clock === "manual") {
      manualStart = (await control.request<ClockReading>("GET", "clock")).EpochMillis;
    }
    return new DynaleaseFake(server.endpoint, control, manualStart, server);
  } catch (error) {
    await server.kill();
    throw error;
  }
}

/** Where a running server is, and the manual clock's start, for {@link connectFake}. */
export interface FakeAddress {
  endpoint: string;
  /** Milliseconds since the epoch where a manual clock started; absent for a real clock. */
  manualStart?: number | null;
  /** The server's process id, if known. */
  pid?: number;
}

/**
 * A fake for a server already running (one a test runner's global setup started): its clients
 * and control API; `stop()` closes the connection and leaves the server running.
 */
export function connectFake(address: FakeAddress): DynaleaseFake {
  const url = new URL(address.endpoint);
  const control = new ControlConnection(url.hostname, Number(url.port));
  return new DynaleaseFake(address.endpoint, control, address.manualStart ?? null, null, address.pid);
}

function reading(clock: ClockReading): Date {
  return new Date(clock.EpochMillis);
}

function epochMillis(when: Instant): number {
  const millis = when instanceof Date ? when.getTime() : typeof when === "number" ? when : Date.parse(when);
  if (!Number.isFinite(millis)) throw new TypeError(`${String(when)} is not a time`);
  return millis;
}

function durationBody(by: Duration): Record<string, unknown> {
  if (typeof by === "number") return { Seconds: by };
  if (typeof by === "string") return { By: by };
  const seconds =
    (by.days ?? 0) * 86_400 + (by.hours ?? 0) * 3_600 + (by.minutes ?? 0) * 60 + (by.seconds ?? 0) + (by.milliseconds ?? 0) / 1000;
  return { Seconds: seconds };
}
