/**
 * What a composite action's steps write to GITHUB_ENV and GITHUB_PATH: seen by its later steps,
 * then by the job's later steps, and kept when the composite action fails part way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTestJob } from './test-support.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-composite-effects-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ACTIONS = `
mkdir -p writer broken "$RUNNER_TEMP/tools"
printf '#!/bin/sh\\necho tool ran\\n' > "$RUNNER_TEMP/tools/kiln-tool" && chmod +x "$RUNNER_TEMP/tools/kiln-tool"
cat > writer/action.yml <<'YAML'
runs:
  using: composite
  steps:
    - run: echo "FROM_INNER=yes" >> "$GITHUB_ENV" && echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
      shell: bash
    - run: echo "inner sees $FROM_INNER" && kiln-tool
      shell: bash
YAML
cat > broken/action.yml <<'YAML'
runs:
  using: composite
  steps:
    - run: echo "KEPT=also" >> "$GITHUB_ENV"
      shell: bash
    - name: neither run nor uses
YAML
`;

describe('composite actions', () => {
  it('pass what their steps wrote on to later steps, also when they fail part way', async () => {
    const { result, results, text } = await runTestJob(
      join(root, 'work'),
      `
jobs:
  a:
    steps:
      - run: |
${ACTIONS.split('\n')
  .map((line) => `          ${line}`)
  .join('\n')}
      - uses: ./writer
      - uses: ./broken
        continue-on-error: true
      - run: echo "job sees $FROM_INNER \${{ env.KEPT }}" && kiln-tool
`,
    );
    expect(result, text).toBe('success');
    expect(results).toEqual(['success', 'success', 'success', 'success']);
    expect(text).toContain('inner sees yes');
    expect(text).toContain('has neither run: nor uses:');
    expect(text).toContain('job sees yes also');
    expect(text.match(/tool ran/g)).toHaveLength(2);
  });
});
