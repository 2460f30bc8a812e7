/**
 * The server process lives exactly as long as its fake: started on a free loopback port, stopped
 * by stop(), never left behind when the process (or the test runner) that started it dies, and a
 * server that cannot start says why, in the server's own words.
 */

import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";

import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import {
  BinaryNotFoundError,
  binaryPath,
  ControlError,
  ServerError,
  ServerStartError,
  startFake,
} from "dynalease-fake";
import { afterAll, expect, test } from "vitest";

import { isAlive, waitUntilGone } from "./support";

const folder = mkdtempSync(path.join(tmpdir(), "dynalease-fake-node-process-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test("two servers listen on free loopback ports of their own and stop with stop()", async () => {
  const [one, two] = await Promise.all([startFake(), startFake()]);
  expect(one.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(one.endpoint).not.toEqual(two.endpoint);
  expect((await one.client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
  const pids = [one.pid!, two.pid!];
  await Promise.all([one.stop(), two.stop()]);
  expect(pids.filter(isAlive)).toEqual([]);
});

test("a stopped server writes its data file and the next one reads it", async () => {
  const data = path.join(folder, "kept.json");
  const first = await startFake({ data });
  await first.client.send(
    new (await import("@aws-sdk/client-dynamodb")).CreateTableCommand({
      TableName: "Kept",
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
  await first.stop();
  expect(existsSync(data)).toBe(true);
  const second = await startFake({ data });
  expect((await second.client.send(new ListTablesCommand({}))).TableNames).toEqual(["Kept"]);
  await second.stop();
});

test("a killed Node process leaves no server behind", async () => {
  const program = `require("dynalease-fake").startFake().then((fake) => { console.log(fake.pid); setInterval(() => {}, 1e9); });`;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  const pid = await new Promise<number>((resolve) => child.stdout.once("data", (line: Buffer) => resolve(Number(String(line)))));
  expect(isAlive(pid)).toBe(true);
  child.kill("SIGKILL");
  await waitUntilGone(pid);
});

test("a killed vitest run leaves no server behind", async () => {
  const project = mkdtempSync(path.join(process.cwd(), "killed-run-"));
  try {
    const pidFile = path.join(project, "server.pid");
    writeFileSync(
      path.join(project, "vitest.config.mjs"),
      `import { dynaleaseFakeConfig } from "dynalease-fake/vitest";\n` +
        `export default { test: { include: ["*.test.mjs"], ...dynaleaseFakeConfig() } };\n`,
    );
    writeFileSync(
      path.join(project, "crash.test.mjs"),
      `import { writeFileSync } from "node:fs";\nimport { test } from "vitest";\nimport { fake } from "dynalease-fake/vitest";\n` +
        `test("the runner dies", () => {\n  writeFileSync(${JSON.stringify(pidFile)}, String(fake().pid));\n` +
        `  process.kill(process.ppid, "SIGKILL");\n  process.kill(process.pid, "SIGKILL");\n});\n`,
    );
    const vitest = require.resolve("vitest/vitest.mjs");
    const run = spawnSync(process.execPath, [vitest, "run", "--root", project], { cwd: project, encoding: "utf8" });
    expect(run.signal).toBe("SIGKILL");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    await waitUntilGone(pid);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 60_000); // a whole vitest run starts inside: a safety net on a busy machine, not a timing claim

test("a killed jest run leaves no server behind", async () => {
  const project = mkdtempSync(path.join(process.cwd(), "killed-jest-"));
  try {
    const pidFile = path.join(project, "server.pid");
    writeFileSync(
      path.join(project, "jest.config.cjs"),
      `module.exports = { testMatch: ["**/crash.test.cjs"], ...require("dynalease-fake/jest").dynaleaseFakeJestConfig() };\n`,
    );
    // One test file: jest runs it in its main process, the one that started the servers.
    writeFileSync(
      path.join(project, "crash.test.cjs"),
      `const { writeFileSync } = require("node:fs");\nconst { fake } = require("dynalease-fake/jest");\n` +
        `test("the runner dies", () => {\n  writeFileSync(${JSON.stringify(pidFile)}, String(fake().pid));\n` +
        `  process.kill(process.pid, "SIGKILL");\n});\n`,
    );
    const jest = require.resolve("jest/bin/jest");
    const run = spawnSync(process.execPath, [jest, "--rootDir", project, "--config", path.join(project, "jest.config.cjs")], {
      cwd: project,
      encoding: "utf8",
    });
    expect(run.signal).toBe("SIGKILL");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(pid).toBeGreaterThan(0);
    await waitUntilGone(pid);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 60_000); // a whole jest run starts inside: a safety net on a busy machine, not a timing claim

test("a port that is taken: the server's own words and its exit code, no server left", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const error = await startFake({ port }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ServerStartError);
    const failure = error as ServerStartError;
    expect(failure.exitCode).toBe(1);
    expect(failure.output).toContain(`dynalease-fake: cannot listen on 127.0.0.1:${port}`);
    expect(failure.message).toContain("(os error 98)"); // EADDRINUSE, in the words of the C library
    expect(failure.message).toContain("it exited before naming its address (exit code 1)");
  } finally {
    taken.close();
  }
});

test("a data file that does not read: its name, line and fault, and the file left as it is", async () => {
  const data = path.join(folder, "broken.json");
  writeFileSync(data, '{"Tables": [\n  {"TableName": "Shop",}\n]}\n');
  const error = (await startFake({ data }).catch((failure: unknown) => failure)) as ServerStartError;
  expect(error).toBeInstanceOf(ServerStartError);
  expect(error.message).toContain(`cannot load the data file ${data}`);
  expect(error.message).toMatch(/line 2/);
  expect(readFileSync(data, "utf8")).toBe('{"Tables": [\n  {"TableName": "Shop",}\n]}\n');
});

test("an option the server refuses is named by the server", async () => {
  const error = (await startFake({ throttleRate: 2 }).catch((failure: unknown) => failure)) as ServerStartError;
  expect(error).toBeInstanceOf(ServerStartError);
  expect(error.output).toContain("`2` is not a number from 0.0 to 1.0");
  expect(error.command.slice(-2)).toEqual(["--throttle-rate", "2"]);
});

test("an executable that is not the server is named, with what it printed", async () => {
  const impostor = path.join(folder, "impostor");
  writeFileSync(impostor, "#!/bin/sh\necho hello from elsewhere\n");
  chmodSync(impostor, 0o755);
  const error = (await startFake({ binary: impostor }).catch((failure: unknown) => failure)) as ServerStartError;
  expect(error).toBeInstanceOf(ServerStartError);
  expect(error.message).toContain("its first line does not name an address");
  expect(error.output).toBe("hello from elsewhere\n");
});

test("a server that names no address in time is killed, not waited for", async () => {
  const silent = path.join(folder, "silent");
  const pidFile = path.join(folder, "silent.pid");
  writeFileSync(silent, `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 60\n`);
  chmodSync(silent, 0o755);
  const error = (await startFake({ binary: silent, startTimeoutMs: 300 }).catch((failure: unknown) => failure)) as ServerStartError;
  expect(error).toBeInstanceOf(ServerStartError);
  expect(error.message).toContain("it named no address within 300 ms (killed)");
  expect(error.exitCode).toBeNull();
  await waitUntilGone(Number(readFileSync(pidFile, "utf8")));
});

test("a platform the package carries no server for gets an error that says what to do", () => {
  const elsewhere = () => binaryPath({ platform: "darwin", arch: "arm64", env: {} });
  expect(elsewhere).toThrow(BinaryNotFoundError);
  expect(elsewhere).toThrow(
    "dynalease-fake carries its server for linux-x64 only, and this is darwin-arm64: build the server from the repository",
  );
  expect(() => binaryPath({ platform: "darwin", arch: "arm64", env: { DYNALEASE_FAKE_BIN: path.join(folder, "none") } })).toThrow(
    `$DYNALEASE_FAKE_BIN names ${path.join(folder, "none")}, which is not an executable file`,
  );
  expect(binaryPath({ platform: "linux", arch: "x64", env: {} })).toMatch(/binary\/linux-x64\/dynalease-fake$/);
});

test("a control call the server refuses raises its status and its words", async () => {
  const fake = await startFake({ clock: "manual", startTime: "2026-01-01T00:00:00Z" });
  try {
    const back = (await fake.setTime("2025-01-01T00:00:00Z").catch((failure: unknown) => failure)) as ControlError;
    expect(back).toBeInstanceOf(ControlError);
    expect(back.status).toBe(400);
    expect(back.serverMessage).toMatch(/before/);
    expect(back.message).toBe(`400 BadRequest: ${back.serverMessage}`);
    await expect(fake.removeFault(999)).rejects.toMatchObject({ status: 404 });
    await expect(fake.save()).rejects.toMatchObject({ status: 409, error: "Conflict" });
    await expect(fake.now()).resolves.toEqual(new Date("2026-01-01T00:00:00Z"));
  } finally {
    await fake.stop();
  }
});

test("a server that cannot write its data file when it stops raises what it printed", async () => {
  const place = path.join(folder, "gone");
  mkdirSync(place);
  const fake = await startFake({ data: path.join(place, "t.json") });
  rmSync(place, { recursive: true });
  const error = (await fake.stop().catch((failure: unknown) => failure)) as ServerError;
  expect(error).toBeInstanceOf(ServerError);
  expect(error.exitCode).toBe(1);
  expect(error.message).toContain("cannot write the data file");
  expect(isAlive(fake.pid!)).toBe(false);
});

test("the package's command runs the server it carries, of the package's own version", () => {
  const manifest = require.resolve("dynalease-fake/package.json");
  const { version, bin } = JSON.parse(readFileSync(manifest, "utf8"));
  const cli = path.join(path.dirname(manifest), bin["dynalease-fake"]);
  const shown = spawnSync(process.execPath, [cli, "--version"], { encoding: "utf8" });
  expect(shown.status).toBe(0);
  expect(shown.stdout.trim()).toBe(`dynalease-fake ${version}`);
});
