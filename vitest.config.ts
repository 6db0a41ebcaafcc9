import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Integration tests mostly wait on servers, subprocesses and model inference they
    // start, on a 2-core machine shared by three test files at once: the default bounds a
    // hang, it does not measure speed (tests that wait longer set their own).
    maxWorkers: 3,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    teardownTimeout: 30_000,
  },
});
