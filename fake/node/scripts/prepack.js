// `npm pack` and `npm publish` run this first: it compiles the TypeScript into dist/ (JavaScript
// and .d.ts) and puts the server binary for Linux x86-64 into binary/linux-x64/.
//
// The binary comes from $DYNALEASE_FAKE_PACK_BINARY, or else from the repository's
// target/release/dynalease-fake (cargo build --release -p dynalease-fake --bin dynalease-fake).
"use strict";

const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const repository = path.resolve(root, "..", "..");

fs.rmSync(path.join(root, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", path.join(root, "tsconfig.json")], {
  stdio: "inherit",
});

const source =
  process.env.DYNALEASE_FAKE_PACK_BINARY || path.join(repository, "target", "release", "dynalease-fake");
if (!fs.existsSync(source)) {
  console.error(
    `prepack: no server binary at ${source}: build it (cargo build --release -p dynalease-fake --bin dynalease-fake) ` +
      "or name one with DYNALEASE_FAKE_PACK_BINARY",
  );
  process.exit(1);
}
const target = path.join(root, "binary", "linux-x64", "dynalease-fake");
fs.rmSync(path.join(root, "binary"), { recursive: true, force: true });
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.copyFileSync(source, target);
fs.chmodSync(target, 0o755);
console.error(`prepack: ${path.relative(root, target)} from ${source} (${fs.statSync(target).size} bytes)`);
