/**
 * Secrets with carriage returns and line breaks, printed by a real step in every form a value
 * takes on its way to a log, leave no piece of four characters or more in the rows the runner
 * reports.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runJob } from './job.ts';
import { Masker, MIN_FRAGMENT_LENGTH } from './masker.ts';
import type { JobSink } from './task-input.ts';

let workRoot: string;
beforeAll(async () => {
  workRoot = await mkdtemp(join(tmpdir(), 'kiln-masking-'));
});
afterAll(async () => {
  await rm(workRoot, { recursive: true, force: true });
});

const WORKFLOW = `
jobs:
  leak:
    steps:
      - env: { S: "\${{ secrets.S }}" }
        run: |
          echo BEGIN
          printf '%s\\n' "$S"
          printf 'x%sy\\n' "$S"
          printf '%s\\n' "$S" | tr -d '\\r'
          printf '%s\\n' "$S" | tr '\\r' '\\n'
          printf '%s\\n' "$S" | sed 's/$/\\r/'
          echo END
`;

/** The rows a job prints between its markers. */
async function rowsPrinting(secret: string): Promise<string[]> {
  const rows: string[] = [];
  const sink: JobSink = { line: (row) => rows.push(row), stepStarted() {}, stepFinished() {} };
  await runJob(
    {
      id: '1',
      workflowPayload: WORKFLOW,
      context: { repository: 'a/b', sha: 'abc', ref: 'refs/heads/main', event_name: 'push' },
      secrets: { S: secret },
      vars: {},
      needs: {},
    },
    {
      workRoot,
      runnerName: 'masking',
      instance: 'http://127.0.0.1:1',
      hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
      killGraceMs: 500,
    },
    sink,
    new AbortController().signal,
  );
  return rows.slice(rows.indexOf('BEGIN') + 1, rows.indexOf('END'));
}

/**
 * What a masked row still shows of the secret: the rows hold nothing but the secret's letters,
 * masks and the markers `x` and `y`, so every run of text between those (and between carriage
 * returns, where a terminal breaks the line) is a piece of the secret.
 */
function shownPieces(row: string): string[] {
  return row
    .split(/\*\*\*|x|y|\r/)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== '');
}

/** Secrets of letters, spaces and every kind of line break, at least four characters trimmed. */
const secrets = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd', 'e', ' ', '\r', '\n', '\r\n'), {
    minLength: 4,
    maxLength: 24,
  })
  .map((parts) => parts.join(''))
  .filter((secret) => secret.trim().length >= 4);

it('masks every line of a secret with CR, LF and CRLF in every form a step prints it', async () => {
  await fc.assert(
    fc.asyncProperty(secrets, async (secret) => {
      const rows = await rowsPrinting(secret);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        for (const piece of shownPieces(row)) {
          expect(piece.length, JSON.stringify({ secret, row })).toBeLessThan(MIN_FRAGMENT_LENGTH);
        }
      }
    }),
    { numRuns: 25 },
  );
}, 60_000);

it('masks the forms of a value the log splits at bare carriage returns', () => {
  fc.assert(
    fc.property(secrets, (secret) => {
      const masker = new Masker();
      masker.add(secret);
      const printed = `${secret}\n${secret.replaceAll('\r', '')}`;
      for (const line of printed.split(/\r\n|\r|\n/)) {
        for (const piece of shownPieces(masker.mask(line))) {
          expect(piece.length).toBeLessThan(MIN_FRAGMENT_LENGTH);
        }
      }
    }),
  );
});
