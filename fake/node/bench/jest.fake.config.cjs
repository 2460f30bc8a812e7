// The small module with dynalease-fake: a server per worker from the package's jest helpers.
const { dynaleaseFakeJestConfig } = require("dynalease-fake/jest");

module.exports = { testMatch: ["<rootDir>/small-module.test.cjs"], testTimeout: 120_000, ...dynaleaseFakeJestConfig() };
