/**
 * Where the `dynalease-fake` executable is: the one this package carries for the platform it runs
 * on, or the one `$DYNALEASE_FAKE_BIN` names.
 */

import * as fs from "node:fs";
import * as path from "node:path";

/** The environment variable that names another executable than the one the package carries. */
export const ENVIRONMENT_VARIABLE = "DYNALEASE_FAKE_BIN";

/** The platforms (`process.platform`-`process.arch`) whose server this package carries. */
export const CARRIED_PLATFORMS: readonly string[] = ["linux-x64"];

/** Where the package keeps the executable of a platform. */
export function carriedBinary(platform: string): string {
  return path.join(__dirname, "..", "binary", platform, "dynalease-fake");
}

/** The executable cannot be found or run: the message says where it looked and what to do. */
export class BinaryNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BinaryNotFoundError";
  }
}

/** What binaryPath reads: the platform, the architecture and the environment. */
export interface Host {
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
}

/**
 * The path of the `dynalease-fake` executable: `$DYNALEASE_FAKE_BIN` when it is set, otherwise
 * the one the package carries for this platform. Throws a {@link BinaryNotFoundError} that says
 * why and what to do, on a platform the package carries no server for too.
 */
export function binaryPath(host: Host = { platform: process.platform, arch: process.arch, env: process.env }): string {
  const explicit = host.env[ENVIRONMENT_VARIABLE];
  if (explicit) {
    if (!isExecutable(explicit)) {
      throw new BinaryNotFoundError(`$${ENVIRONMENT_VARIABLE} names ${explicit}, which is not an executable file`);
    }
    return explicit;
  }
  const platform = `${host.platform}-${host.arch}`;
  if (!CARRIED_PLATFORMS.includes(platform)) {
    throw new BinaryNotFoundError(
      `dynalease-fake carries its server for ${CARRIED_PLATFORMS.join(", ")} only, and this is ${platform}: ` +
        `build the server from the repository (cargo build --release -p dynalease-fake --bin dynalease-fake) ` +
        `and set $${ENVIRONMENT_VARIABLE} to target/release/dynalease-fake`,
    );
  }
  const carried = carriedBinary(platform);
  if (!isExecutable(carried)) {
    throw new BinaryNotFoundError(
      `the package has no executable server at ${carried}: it was packed without one; ` +
        `reinstall it, or set $${ENVIRONMENT_VARIABLE} to a dynalease-fake executable`,
    );
  }
  return carried;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
