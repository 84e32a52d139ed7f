/**
 * A daemon started the way `npx kiln runner daemon` starts it (npm's `node_modules/.bin` in front
 * of PATH, with a `node` of its own there, and npm's variables) against a real Kiln: the job sees
 * the host's PATH and none of npm's variables; an action missing from Kiln's actions source ends
 * with a message naming it and the source; an `::error file=…::` command reaches the stored log
 * exactly as the step printed it.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KilnWorld } from './kiln-world.ts';

const ANNOTATION =
  '::error file=src/app.ts,line=12,endLine=14,col=3,title=Type error::x is%0Anot a number';

let world: KilnWorld;

beforeAll(async () => {
  world = await KilnWorld.start();
});
afterAll(async () => {
  await world?.close();
});

describe('a daemon started through npx', () => {
  it("runs jobs on the host's PATH and names an action its source does not have", async () => {
    const { token, full } = await world.repo();
    await world.actionsOwner();
    const npmBin = join(world.dir, 'project', 'node_modules', '.bin');
    await mkdir(npmBin, { recursive: true });
    await writeFile(join(npmBin, 'node'), '#!/bin/sh\necho "the package\'s own node"\n');
    await chmod(join(npmBin, 'node'), 0o755);
    const workflow = `on: push
jobs:
  build:
    runs-on: kiln-npx
    steps:
      - run: |
          echo "job PATH is $PATH"
          echo "npm variables: $(env | grep -c '^npm_')"
          echo "${ANNOTATION}"
      - uses: actions/not-mirrored@v4
`;
    const daemon = world.daemon(await world.register('kiln-npx'), ['--once'], {
      path: `${npmBin}:${process.env.PATH ?? ''}`,
      env: { npm_command: 'exec', npm_config_cache: join(world.dir, 'npm-cache'), INIT_CWD: '/' },
    });
    await world.push(full, token, { '.gitea/workflows/ci.yml': workflow });
    const { run, log } = await world.finishedRun(full, token, daemon);
    expect(run.conclusion, log).toBe('failure');
    // This suite may itself run under npx: the host's PATH is what is left without npm's part.
    const hostPath = (process.env.PATH ?? '')
      .split(':')
      .filter((dir) => !dir.endsWith('/node_modules/.bin') && !dir.endsWith('/node-gyp-bin'))
      .join(':');
    expect(log).toContain(`job PATH is ${hostPath}\n`);
    expect(log).not.toContain('node_modules/.bin');
    expect(log).toContain('npm variables: 0');
    expect(log.split('\n').some((line) => line.endsWith(` ${ANNOTATION}`))).toBe(true);
    expect(log).toContain(
      `action actions/not-mirrored@v4 not found at ${world.kiln.url}/-/actions`,
    );
    expect(log).not.toContain('Username');
  }, 150_000);
});
