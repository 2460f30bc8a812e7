// The small module with dynalite, through jest-dynalite's preset (tables from jest-dynalite-config.js).
module.exports = { preset: "jest-dynalite", testMatch: ["<rootDir>/small-module.test.cjs"], testTimeout: 120_000 };
