import { afterAll } from 'vitest';

/**
 * Puts the process environment back as it was when the suite was collected, after its last test.
 * Test files share their worker process (vitest.config.ts), so variables a suite sets for a
 * client library in this process (`ACTIONS_RUNTIME_URL`, …) would otherwise reach the next one.
 */
export function restoreEnvironmentAfterSuite(): void {
  const saved = { ...process.env };
  afterAll(() => {
    for (const key of Object.keys(process.env)) {
      if (!(key in saved)) delete process.env[key];
    }
    Object.assign(process.env, saved);
  });
}
