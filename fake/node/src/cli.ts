#!/usr/bin/env node
/**
 * `npx dynalease-fake serve ...`: the server this package carries, run with the arguments given
 * (`dynalease-fake serve --help` lists them).
 */

import { spawn } from "node:child_process";

import { binaryPath } from "./binary";

let executable: string;
try {
  executable = binaryPath();
} catch (error) {
  process.stderr.write(`dynalease-fake: ${(error as Error).message}\n`);
  process.exit(1);
}
const child = spawn(executable, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal ? 128 : 1);
});
