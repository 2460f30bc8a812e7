// jest with a server per worker, reset before each test, on a clock that stands still.
const { dynaleaseFakeJestConfig } = require("dynalease-fake/jest");

module.exports = {
  testMatch: ["**/*.test.cjs"],
  ...dynaleaseFakeJestConfig({ clock: "manual", startTime: "2026-01-01T00:00:00Z" }),
};
