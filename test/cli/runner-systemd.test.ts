/**
 * contrib/systemd/kiln-runner.service: `systemd-analyze verify` finds nothing to say about it
 * (with /opt/kiln pointing at this checkout, so that the programs it names exist), and it keeps
 * what docs/runners.md promises: the built-in runner's daemon as its own unprivileged user, with
 * its own work directory, a read-only system and no home directories.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/doc-blocks.ts';

const UNIT = join(ROOT, 'contrib', 'systemd', 'kiln-runner.service');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;

function verify(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-runner-unit-'));
  const path = join(dir, 'kiln-runner.service');
  writeFileSync(path, text);
  const result = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe.skipIf(!analyze)(
  `kiln-runner.service${analyze ? '' : ' (systemd-analyze is not installed)'}`,
  () => {
    const unit = readFileSync(UNIT, 'utf8');
    const settings = (key: string) =>
      [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]);

    it('passes systemd-analyze verify without a word, and a misspelt option does not', () => {
      const here = unit.replaceAll('/opt/kiln/', `${ROOT}/`);
      expect(verify(here)).toEqual({ code: 0, output: '' });
      expect(verify(here.replace('ProtectHome=', 'ProtectHomes=')).output).toContain(
        "Unknown key 'ProtectHomes'",
      );
    });

    it('runs the runner daemon on the bundled Node as its own confined user', () => {
      expect(settings('ExecStart')).toEqual([
        '/opt/kiln/node_modules/node/bin/node /opt/kiln/bin/kiln.js runner daemon --file /var/lib/kiln-runner/.runner --workdir /var/lib/kiln-runner/work',
      ]);
      expect(settings('User')).toEqual(['kiln-runner']);
      for (const [key, value] of [
        ['StateDirectory', 'kiln-runner'],
        ['ReadWritePaths', '/var/lib/kiln-runner'],
        ['ProtectSystem', 'strict'],
        ['ProtectHome', 'yes'],
        ['NoNewPrivileges', 'yes'],
        ['PrivateTmp', 'yes'],
      ] as const) {
        expect(settings(key), key).toEqual([value]);
      }
      // The jobs' sandbox needs user namespaces.
      expect(settings('RestrictNamespaces')).toEqual([]);
      expect(settings('PrivateUsers')).toEqual([]);
    });
  },
);
