/**
 * Requests to the control API of `dynalease-fake serve` (`/_dynalease/...`), on one keep-alive
 * connection.
 */

import * as http from "node:http";

/** The path prefix of the control API. */
export const PREFIX = "/_dynalease/";

/**
 * A control request the server refused: its HTTP status, the kind of error and the server's own
 * message, such as `400 BadRequest: the body is not what this endpoint takes: ...`.
 */
export class ControlError extends Error {
  /** The HTTP status of the answer (400, 404, 405, 409...). */
  readonly status: number;
  /** The `Error` member of the answer (`BadRequest`, `NotFound`...). */
  readonly error: string;
  /** The `Message` member of the answer: the server's words. */
  readonly serverMessage: string;

  constructor(status: number, error: string, serverMessage: string) {
    super(`${status} ${error}: ${serverMessage}`);
    this.name = "ControlError";
    this.status = status;
    this.error = error;
    this.serverMessage = serverMessage;
  }
}

/** A control request as it went out: the method and the path under the prefix. */
export interface ControlCall {
  method: string;
  path: string;
}

/** The body of a control request: JSON, or bytes sent as they are. */
export type ControlBody = unknown | { raw: Buffer };

/**
 * One keep-alive HTTP/1.1 connection to the control API at `host:port`; opened again when the
 * server has closed it (after its idle timeout). Requests take turns on it.
 */
export class ControlConnection {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly listeners: ((call: ControlCall) => void)[] = [];

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly timeoutMs = 60_000,
  ) {}

  /** Calls `listener` with every request sent from now on (the package's tests list them). */
  onRequest(listener: (call: ControlCall) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Sends `method PREFIX+path` with `body` as JSON (or its `raw` bytes) and returns the JSON
   * answer; rejects with a {@link ControlError} holding the server's message when it refuses.
   */
  async request<T = any>(method: string, path: string, body?: ControlBody): Promise<T> {
    for (const listener of this.listeners) listener({ method, path });
    const data = isRaw(body) ? body.raw : body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
    let answer: { status: number; text: string };
    try {
      answer = await this.exchange(method, path, data);
    } catch (error) {
      // A kept connection the server closed while it was idle: the request never reached it,
      // so it is sent once more, on a new connection.
      if (!(error as { reused?: boolean }).reused || !isConnectionLost(error)) throw error;
      answer = await this.exchange(method, path, data);
    }
    let document: any = null;
    if (answer.text) {
      try {
        document = JSON.parse(answer.text);
      } catch {
        throw new ControlError(answer.status, "NotJson", answer.text);
      }
    }
    if (answer.status >= 400) {
      const refusal = document !== null && typeof document === "object" ? document : {};
      throw new ControlError(answer.status, String(refusal.Error ?? ""), String(refusal.Message ?? ""));
    }
    return document as T;
  }

  private exchange(method: string, path: string, data: Buffer): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: this.host,
          port: this.port,
          method,
          path: PREFIX + path,
          agent: this.agent,
          headers: { "Content-Type": "application/json", "Content-Length": data.length },
          timeout: this.timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
          response.on("error", reject);
        },
      );
      request.setNoDelay(true);
      request.on("timeout", () =>
        request.destroy(new Error(`the control API at ${this.host}:${this.port} did not answer within ${this.timeoutMs} ms`)),
      );
      request.on("error", (error) => {
        (error as { reused?: boolean }).reused = request.reusedSocket;
        reject(error);
      });
      request.end(data);
    });
  }

  /** Closes the connection, if one is open. */
  close(): void {
    this.agent.destroy();
  }
}

function isRaw(body: ControlBody): body is { raw: Buffer } {
  return typeof body === "object" && body !== null && Buffer.isBuffer((body as { raw?: unknown }).raw);
}

function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === "ECONNRESET" || code === "EPIPE";
}
