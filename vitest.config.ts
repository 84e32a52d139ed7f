import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` holds the fast tests beside the code (`npm run check` runs it);
 * `integration` holds the black-box suites in test/ that boot real servers.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/slowest-files.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          environment: 'node',
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
        },
      },
    ],
  },
});
