import { defineConfig } from "vitest/config"

// One suite, two backends: with DATABASE_URL/REDIS_URL set the same tests run against real servers.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
})
