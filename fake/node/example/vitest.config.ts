import { dynaleaseFakeConfig } from "dynalease-fake/vitest";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["*.test.ts", "test/**/*.test.ts"], // jest/ is jest's
    // A server per worker, reset before each test; its clock stands still until a test moves it.
    ...dynaleaseFakeConfig({ clock: "manual", startTime: "2026-01-01T00:00:00Z" }),
  },
});
