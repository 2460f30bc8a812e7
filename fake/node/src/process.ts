/**
 * `dynalease-fake serve` as a child process: started with a pipe on its stdin (so it stops when
 * this process exits, even killed), waited for until it names its address, stopped in order.
 */

import { ChildProcess, spawn } from "node:child_process";

const ANNOUNCEMENT = "listening on ";

/**
 * The server did not start: why, the command, its exit code (`null` if it was still running when
 * it was given up on) and everything it printed, in the message too.
 */
export class ServerStartError extends Error {
  readonly command: string[];
  readonly exitCode: number | null;
  readonly output: string;

  constructor(reason: string, command: string[], exitCode: number | null, output: string) {
    super(
      `dynalease-fake serve did not start: ${reason}\ncommand: ${command.join(" ")}\n` +
        `it printed: ${output.trim() || "(nothing)"}`,
    );
    this.name = "ServerStartError";
    this.command = command;
    this.exitCode = exitCode;
    this.output = output;
  }
}

/** The server stopped with an error (for example, its data file could not be written). */
export class ServerError extends Error {
  readonly exitCode: number | null;
  readonly output: string;

  constructor(exitCode: number | null, signal: string | null, output: string) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    super(`dynalease-fake serve ${how}: ${output.trim() || "(no output)"}`);
    this.name = "ServerError";
    this.exitCode = exitCode;
    this.output = output;
  }
}

/** A running server process: its address and what it has printed. */
export class ServerProcess {
  private printed = "";
  private readonly exited: Promise<{ code: number | null; signal: string | null }>;
  private done = false;

  private constructor(
    readonly child: ChildProcess,
    readonly command: string[],
    /** The URL it named on its first line, such as `http://127.0.0.1:40123`. */
    public endpoint = "",
  ) {
    this.exited = new Promise((resolve) => {
      // "close": the process has exited and its output has all been read.
      child.once("close", (code, signal) => {
        this.done = true;
        resolve({ code, signal });
      });
    });
    const keep = (chunk: Buffer) => {
      this.printed += chunk.toString("utf8");
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }

  /** Everything the server has printed so far, stdout and stderr. */
  get output(): string {
    return this.printed;
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return !this.done;
  }

  /**
   * Starts `command` and waits until its first line names its address; rejects with a
   * {@link ServerStartError} (the process killed) if it exits first, names none within
   * `timeoutMs`, or prints something else.
   */
  static start(command: string[], timeoutMs: number): Promise<ServerProcess> {
    let child: ChildProcess;
    try {
      child = spawn(command[0], command.slice(1), {
        stdio: ["pipe", "pipe", "pipe"],
        // A process group of its own: a Ctrl-C in the terminal reaches the test runner, which stops
        // the server in order, instead of the server first.
        detached: true,
      });
    } catch (error) {
      return Promise.reject(new ServerStartError(String(error), command, null, ""));
    }
    const server = new ServerProcess(child, command);
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = async (reason: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const still = server.running;
        const { code } = await server.kill();
        reject(new ServerStartError(still ? `${reason} (killed)` : reason, command, still ? null : code, server.output));
      };
      const timer = setTimeout(() => fail(`it named no address within ${timeoutMs} ms`), timeoutMs);
      child.once("error", (error) => fail(`it could not be run: ${error.message}`));
      child.once("close", (code, signal) =>
        fail(`it exited before naming its address (${signal ? `killed by ${signal}` : `exit code ${code}`})`),
      );
      const watch = () => {
        const newline = server.printed.indexOf("\n");
        if (newline < 0 || settled) return;
        const line = server.printed.slice(0, newline).trim();
        if (!line.startsWith(ANNOUNCEMENT)) {
          void fail("its first line does not name an address");
          return;
        }
        settled = true;
        clearTimeout(timer);
        child.stdout?.off("data", watch);
        server.endpoint = line.slice(ANNOUNCEMENT.length);
        // Neither the process nor its pipes keep this process alive: when it exits, the server
        // sees its stdin close and stops.
        child.unref();
        for (const stream of [child.stdin, child.stdout, child.stderr]) {
          (stream as unknown as { unref?: () => void } | null)?.unref?.();
        }
        resolve(server);
      };
      child.stdout?.on("data", watch);
    });
  }

  /**
   * Stops the server as SIGTERM does (requests in flight answered, the data file written) by
   * closing its stdin; kills it after `timeoutMs`. Rejects with a {@link ServerError} if it
   * exited with an error.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.done) {
      this.child.stdin?.end();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), timeoutMs);
      });
      const first = await Promise.race([this.exited, late]);
      clearTimeout(timer);
      if (first === "late") {
        await this.kill();
        return;
      }
    }
    const { code, signal } = await this.exited;
    if (code !== 0) throw new ServerError(code, signal, this.output);
  }

  /** Kills the server (if it still runs) and waits for it. */
  async kill(): Promise<{ code: number | null; signal: string | null }> {
    if (!this.done) this.child.kill("SIGKILL");
    this.child.stdin?.destroy();
    return this.exited;
  }
}
