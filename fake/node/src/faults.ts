/** Fault rules as the control API takes them, built from typed options and checked before they go. */

/** The kinds of fault a rule takes that need no detail. */
export type SimpleFaultKind =
  | "Throttle"
  | "ThrottlingException"
  | "InternalServerError"
  | "LostResponse"
  | "ResourceNotFound"
  | "StallReplication";

/** Every kind of fault, as the control API names it. */
export type FaultKind = SimpleFaultKind | "Latency" | "SlowResponse" | "Error" | "Unprocessed" | "StaleRead";

/** The kinds, in the control API's order. */
export const FAULT_KINDS: readonly FaultKind[] = [
  "Throttle",
  "ThrottlingException",
  "InternalServerError",
  "LostResponse",
  "ResourceNotFound",
  "Latency",
  "SlowResponse",
  "Error",
  "Unprocessed",
  "StallReplication",
  "StaleRead",
];

/** Which requests a rule meets, and how often. */
export interface FaultTarget {
  /** Only this operation, such as `"PutItem"`. */
  operation?: string;
  /** Only requests that name this table. */
  table?: string;
  /** Only requests of this account (twelve digits: the access key id that signed them). */
  account?: string;
  /** Only requests of this region (the region of their signature). */
  region?: string;
  /** The share of matching requests that meet the fault (0 to 1), drawn from the server's seed. */
  probability?: number;
  /** Used up after this many faults. */
  times?: number;
  /** Lets this many matching requests through first. */
  after?: number;
}

/** A `Latency` or `SlowResponse` fault: how long, in milliseconds of real time. */
export interface DelayFault extends FaultTarget {
  delayMs: number;
}

/** An `Error` fault: any error DynamoDB sends. */
export interface ErrorFault extends FaultTarget {
  /** The error code, such as `"AccessDeniedException"`. */
  code: string;
  message?: string;
  /** The HTTP status, 400 by default. */
  status?: number;
}

/** An `Unprocessed` fault: how many requests of a batch are processed. */
export interface UnprocessedFault extends FaultTarget {
  processed: number;
}

/**
 * A `StaleRead` fault: each eventually consistent read it meets sees the tables, and their indexes,
 * as they were at one instant up to `maxLagMs` ago (at most an hour), drawn from the server's seed.
 */
export interface StaleReadFault extends FaultTarget {
  maxLagMs: number;
}

/** A rule as `GET faults` lists it. */
export interface FaultRuleState {
  Id: number;
  Fault: FaultKind;
  Operation?: string | null;
  Table?: string | null;
  Account?: string | null;
  Region?: string | null;
  Probability?: number | null;
  Times?: number | null;
  Remaining?: number | null;
  After?: number | null;
  /** Requests it matched. */
  Matched: number;
  /** Faults it gave. */
  Fired: number;
  [member: string]: unknown;
}

// The details each kind needs, and those it may have, as option names and member names.
const DETAILS: Partial<Record<FaultKind, { needs: string[]; may: string[] }>> = {
  Latency: { needs: ["delayMs"], may: [] },
  SlowResponse: { needs: ["delayMs"], may: [] },
  Error: { needs: ["code"], may: ["message", "status"] },
  Unprocessed: { needs: ["processed"], may: [] },
  StaleRead: { needs: ["maxLagMs"], may: [] },
};
const TARGET = ["operation", "table", "account", "region", "probability", "times", "after"];

/** The rule the control API takes for `kind` with `options`; a TypeError says what is wrong. */
export function faultRule(kind: string, options: Record<string, unknown> = {}): Record<string, unknown> {
  if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new TypeError(`unknown fault kind ${JSON.stringify(kind)}; the kinds are ${FAULT_KINDS.join(", ")}`);
  }
  const { needs, may } = DETAILS[kind as FaultKind] ?? { needs: [], may: [] };
  const stray = Object.keys(options).filter(
    (name) => options[name] !== undefined && !TARGET.includes(name) && !needs.includes(name) && !may.includes(name),
  );
  if (stray.length > 0) {
    const takes = [...needs, ...may].join(", ") || "no details";
    throw new TypeError(`a ${kind} fault does not take ${stray.join(", ")}; it takes ${takes}`);
  }
  const missing = needs.filter((name) => options[name] === undefined || options[name] === null);
  if (missing.length > 0) {
    throw new TypeError(`a ${kind} fault needs ${missing.join(", ")}`);
  }
  const rule: Record<string, unknown> = { Fault: kind };
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && value !== null) rule[name.charAt(0).toUpperCase() + name.slice(1)] = value;
  }
  return rule;
}
