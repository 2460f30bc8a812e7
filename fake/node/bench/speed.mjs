// The speed figures of fake/node/README.md, run from a folder where the packed dynalease-fake,
// jest, jest-dynalite and @aws-sdk/client-dynamodb are installed, with this folder's files beside
// them:
//
//   node speed.mjs [--rounds 5] [--starts 50] [--resets 1000]
//
// It times the small module (small-module.test.cjs) run by jest with dynalease-fake's helpers and
// with jest-dynalite, in alternating rounds (the whole jest process, and the time jest reports);
// startFake() until the server names its address and until it answers ListTables; and reset()
// after a test that left a table, an item, a fault rule, requests and a clock moved and let run.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";

const require = createRequire(import.meta.url);
const { CreateTableCommand, ListTablesCommand, PutItemCommand } = require("@aws-sdk/client-dynamodb");
const { startFake } = require("dynalease-fake");

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const rounds = option("rounds", 5);
const starts = option("starts", 50);
const resets = option("resets", 1000);
const jest = require.resolve("jest/bin/jest");

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const p95 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

// The whole jest process, in wall-clock time and in the CPU time of all its processes (the
// server's too, a child of jest's main process), which a busy machine moves less.
function runJest(config, backend) {
  const script = `TIMEFORMAT="%R %U %S"; { time "${process.execPath}" "${jest}" --config ${config} >/dev/null 2>&1 ; } 2>&1`;
  const report = execFileSync("bash", ["-c", script], {
    env: { ...process.env, BENCH_BACKEND: backend, NODE_NO_WARNINGS: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [wall, user, system] = report.trim().split(/\s+/).slice(-3).map(Number);
  return { wall: wall * 1000, cpu: (user + system) * 1000 };
}

const suite = { fake: [], dynalite: [] };
for (let round = 0; round < rounds; round++) {
  for (const [backend, config] of [
    ["fake", "jest.fake.config.cjs"],
    ["dynalite", "jest.dynalite.config.cjs"],
  ]) {
    suite[backend].push(runJest(config, backend));
  }
}

const startTimes = [];
const answerTimes = [];
for (let i = 0; i < starts; i++) {
  const begun = performance.now();
  const fake = await startFake();
  const named = performance.now();
  await fake.controlConnection.request("GET", "clock");
  startTimes.push(named - begun);
  answerTimes.push(performance.now() - begun);
  await fake.stop();
}

const resetTimes = [];
const fake = await startFake({ clock: "manual", startTime: "2026-01-01T00:00:00Z" });
const { client } = fake;
await client.send(new ListTablesCommand({}));
for (let i = 0; i < resets; i++) {
  await client.send(
    new CreateTableCommand({
      TableName: "Left",
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
  await client.send(new PutItemCommand({ TableName: "Left", Item: { pk: { S: "x" } } }));
  await fake.addFault("Throttle", { operation: "Scan" });
  await fake.advance(60);
  await fake.run();
  const begun = performance.now();
  await fake.reset();
  resetTimes.push(performance.now() - begun);
}
await fake.stop();

const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
for (const [name, key] of [["wall-clock", "wall"], ["CPU", "cpu"]]) {
  const fake = median(suite.fake.map((run) => run[key]));
  const dynalite = median(suite.dynalite.map((run) => run[key]));
  console.log(`the small module, the whole jest process, ${name} time, median of ${rounds}: dynalease-fake ${ms(fake)}, jest-dynalite ${ms(dynalite)}`);
}
console.log(`startFake() until it names its address, median of ${starts}: ${ms(median(startTimes))} (95th percentile ${ms(p95(startTimes))})`);
console.log(`startFake() until its first answer: ${ms(median(answerTimes))} (95th percentile ${ms(p95(answerTimes))})`);
console.log(`reset() after a test, median of ${resets}: ${ms(median(resetTimes))} (95th percentile ${ms(p95(resetTimes))})`);
