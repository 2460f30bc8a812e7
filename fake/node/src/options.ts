/**
 * The options of {@link startFake}: those of `dynalease-fake serve` (in camelCase), and how to
 * run it. The server's own description of each is in the README of `fake/` ("A test server for
 * every language").
 */

/** The options of `dynalease-fake serve`, and of how this package runs it. */
export interface FakeOptions {
  /** A file the tables are loaded from at start (if it exists) and saved to when the server stops. */
  data?: string;
  /** `"real"` (default): the clock runs with real time; `"manual"`: it stands still until a test moves it. */
  clock?: "real" | "manual";
  /** Where the clock starts: a `Date` or RFC 3339 text (default: the time of day). */
  startTime?: Date | string;
  /** The seed of every random choice (which requests meet a probable fault, request ids). */
  seed?: number;
  /** The address to listen on (default `127.0.0.1`). */
  host?: string;
  /** The port (default 0: a free one). */
  port?: number;
  /** Turn the control API on whatever the address. */
  control?: boolean;
  /** How many requests the request log keeps (default 1000). */
  requestLog?: number;
  /** How long an idle keep-alive connection stays open, in seconds of real time (default 60). */
  idleTimeoutSecs?: number;
  /** How often time-to-live sweeps run, in seconds of the fake's clock (default 600). */
  ttlSweepIntervalSecs?: number;
  /** How long DescribeTable shows a new table CREATING, in ms of the fake's clock (default 0). */
  tableCreationMs?: number;
  /** How long a stream stays ENABLING or DISABLING, in ms of the fake's clock (default 0). */
  streamStatusChangeMs?: number;
  /** Fault rules for the whole run, from the start. */
  throttleRate?: number;
  errorRate?: number;
  lostResponseRate?: number;
  latencyMs?: number;
  faultOperation?: string;
  faultTable?: string;
  faultTimes?: number;
  /** Another executable than the one the package carries (so does `$DYNALEASE_FAKE_BIN`). */
  binary?: string;
  /** How long to wait for the server to name its address, in ms (default 30000). */
  startTimeoutMs?: number;
}

// Options of this package, not of the server.
const OWN = new Set(["binary", "startTimeoutMs", "host", "port"]);

/**
 * The arguments of `dynalease-fake serve` for `options`, after the executable. The server always
 * gets `--stop-on-stdin-close`: its stdin is a pipe from this process, so it stops when this
 * process exits, even killed.
 */
export function serveArguments(options: FakeOptions): string[] {
  const args = ["serve", "--host", options.host ?? "127.0.0.1", "--port", String(options.port ?? 0), "--stop-on-stdin-close"];
  for (const [name, value] of Object.entries(options)) {
    if (OWN.has(name) || value === undefined || value === null || value === false) continue;
    const flag = "--" + name.replace(/[A-Z]/g, (letter) => "-" + letter.toLowerCase());
    if (value === true) {
      args.push(flag);
    } else if (value instanceof Date) {
      args.push(flag, value.toISOString());
    } else {
      args.push(flag, String(value));
    }
  }
  return args;
}
