/**
 * contrib/systemd/kiln.service: `systemd-analyze verify` finds nothing to say about it (with
 * /opt/kiln pointing at this checkout, so that the programs it names exist), it keeps the
 * hardening docs/deployment.md promises, and, on a machine booted with systemd whose owner
 * allows the test to change it (KILN_TEST_SYSTEMD=1, as root), docs/deployment.md's installation
 * and systemd blocks install and start it for real.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runScript, shellBlocks } from '../support/doc-blocks.ts';
import { eventually } from '../support/eventually.ts';

const UNIT = join(ROOT, 'contrib', 'systemd', 'kiln.service');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const booted = existsSync('/run/systemd/system') && process.getuid?.() === 0;
const allowed = process.env.KILN_TEST_SYSTEMD === '1';

function verify(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-unit-'));
  const path = join(dir, 'kiln.service');
  writeFileSync(path, text);
  const result = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe.skipIf(!analyze)(
  `kiln.service${analyze ? '' : ' (systemd-analyze is not installed)'}`,
  () => {
    const unit = readFileSync(UNIT, 'utf8');

    it('passes systemd-analyze verify without a word', () => {
      expect(verify(unit.replaceAll('/opt/kiln', ROOT))).toEqual({ code: 0, output: '' });
    });

    it('is checked for real: a misspelt option does not pass unnoticed', () => {
      const typo = unit.replaceAll('/opt/kiln', ROOT).replace('PrivateTmp=', 'PrivateTemp=');
      expect(verify(typo).output).toContain("Unknown key 'PrivateTemp'");
    });

    it('runs the launcher on the bundled Node as a dedicated, confined user', () => {
      const settings = (key: string) =>
        [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((match) => match[1]);
      expect(settings('ExecStart')).toEqual([
        '/opt/kiln/node_modules/node/bin/node /opt/kiln/bin/kiln.js serve --config /etc/kiln/service.toml',
      ]);
      expect(settings('User')).toEqual(['kiln']);
      expect(settings('Restart')).toEqual(['on-failure']);
      for (const [key, value] of [
        ['ProtectSystem', 'strict'],
        ['ReadWritePaths', '/var/lib/kiln'],
        ['NoNewPrivileges', 'yes'],
        ['PrivateTmp', 'yes'],
        ['ProtectHome', 'yes'],
        ['CapabilityBoundingSet', ''],
      ] as const) {
        expect(settings(key), key).toEqual([value]);
      }
    });
  },
);

const why = !booted
  ? 'not booted with systemd as root'
  : !allowed
    ? 'set KILN_TEST_SYSTEMD=1 to let it install Kiln in /opt/kiln and start a service'
    : '';

describe.skipIf(why !== '')(`kiln.service under systemd${why ? ` (${why})` : ''}`, () => {
  it('installs and starts as docs/deployment.md says, and answers /healthz', async () => {
    if (!existsSync('/opt/kiln')) {
      // Stands in for the page's "put a copy of Kiln in /opt/kiln".
      spawnSync('git', ['clone', '--quiet', '--no-local', ROOT, '/opt/kiln'], { stdio: 'inherit' });
    }
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
    for (const block of shellBlocks('deployment.md')) {
      if (block.tag !== 'install' && block.tag !== 'systemd') continue;
      const result = await runScript(block.script, env, '/');
      expect(result.code, `${block.script}\n${result.stderr}`).toBe(0);
    }
    const healthy = await eventually(async () => {
      const response = await fetch('http://127.0.0.1:3000/healthz').catch(() => undefined);
      return response?.status === 200;
    });
    expect(healthy).toBe(true);
    const stop = spawnSync('systemctl', ['stop', 'kiln'], { encoding: 'utf8' });
    expect(stop.status).toBe(0);
    const state = spawnSync('systemctl', ['show', 'kiln', '-p', 'ExecMainStatus'], {
      encoding: 'utf8',
    });
    expect(state.stdout.trim()).toBe('ExecMainStatus=0');
  });
});
