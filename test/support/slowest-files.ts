import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { recordDurations } from './slowest-first.ts';

/** How many files the summary names. */
const SHOWN = 20;

/**
 * Names the slowest test files at the end of a run, so the next place to make the suite faster
 * is visible in every CI log rather than found by profiling. A file's time is its import plus its
 * tests and hooks, which is what it adds to the run on its worker. With KILN_RECORD_DURATIONS=1
 * the black-box files' times are also written to the list the sequencer orders files by
 * (test/support/slowest-first.ts).
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    // A skipped file (one that needs a tool this machine lacks) says nothing of its duration.
    const timed = modules
      .filter((module) => module.state() !== 'skipped')
      .map((module) => {
        const d = module.diagnostic();
        return {
          file: relative(process.cwd(), module.moduleId),
          ms: d.collectDuration + d.duration,
        };
      });
    if (process.env.KILN_RECORD_DURATIONS === '1') {
      const suites = timed.filter(({ file }) => file.startsWith('test/'));
      recordDurations(
        Object.fromEntries(suites.map(({ file, ms }) => [file, Math.round(ms / 100) / 10])),
      );
    }
    if (timed.length < 2) return;
    timed.sort((a, b) => b.ms - a.ms);
    const lines = timed
      .slice(0, SHOWN)
      .map(({ file, ms }) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
    process.stdout.write(
      `\nslowest ${Math.min(SHOWN, timed.length)} test files:\n${lines.join('\n')}\n`,
    );
  }
}
