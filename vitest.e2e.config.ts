import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Two files at once: an e2e file mostly waits (on its web-mode server, Chromium, the page), so
    // one at a time left the cores idle (a run of all the files: 77 s of CPU in 495 s of wall time
    // on two workers under a load average of 30). Each file has its own server, browser, temp
    // folders and free ports.
    fileParallelism: true,
    maxWorkers: 2,
    // expect.poll waits for the page to show a state; its default second was too short beside
    // another file on a loaded machine (a contract check's round trip to the engine took longer).
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
  },
});
