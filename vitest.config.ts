import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.ts';

/**
 * Test files run at once: one more than the cores. The black-box suites spend most of their time
 * waiting on processes they started (git, servers, Chromium, PostgreSQL), so with one file per
 * core but one (Vitest's default) a 2-core machine ran them one at a time and left a core idle;
 * three at once run the whole SQLite suite there in under 8 minutes.
 */
const FILES_AT_ONCE = Math.max(2, availableParallelism()) + 1;

/**
 * Two projects: `unit` holds the fast tests beside the code (`npm run check` runs it);
 * `integration` holds the black-box suites in test/ that boot real servers.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/slowest-files.ts'],
    maxWorkers: FILES_AT_ONCE,
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          // Some unit tests start git or worker threads, whose start-up takes seconds on a busy
          // two-core machine; Vitest's 5 s default then fails them for the machine, not the code.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // Files share their worker process and its loaded modules: loading the application
          // afresh for each file cost about a second of CPU per file (a third of the suite's
          // CPU time on two cores). Each file still starts its own servers and databases; what
          // a file changes in its process (environment, spies, listeners) it puts back.
          isolate: false,
        },
      },
    ],
  },
});
