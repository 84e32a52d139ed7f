import { dirname } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { within } from './engine/confinement.ts';
import { lookupAccount, sandboxView } from './isolation.ts';

const segment = fc.constantFrom('home', 'ci', 'bin', '.local', 'work', 'runner', 'tmp', 'opt');
const path = fc
  .array(segment, { minLength: 1, maxLength: 4 })
  .map((parts) => `/${parts.join('/')}`);

describe('sandboxView', () => {
  it('never gives back the registration file, the work root or anything holding them', () => {
    fc.assert(
      fc.property(path, path, path, fc.array(path, { maxLength: 5 }), (file, work, home, PATH) => {
        const options = {
          mode: 'bwrap' as const,
          registrationFile: `${file}/.runner`,
          workRoot: work,
          hostEnv: { HOME: home, PATH: PATH.join(':') },
        };
        const { hidden, tools } = sandboxView(options);
        expect(hidden).toContain(file);
        for (const tool of tools) {
          expect(within(file, tool)).toBe(false);
          expect(within(work, tool) || within(tool, work)).toBe(false);
        }
      }),
    );
  });

  it("gives back the runner's Node from under a hidden home", () => {
    const node = dirname(process.execPath);
    const options = {
      mode: 'bwrap' as const,
      registrationFile: '/srv/runner/.runner',
      workRoot: '/srv/runner/work',
      hostEnv: { HOME: dirname(node), PATH: '/usr/bin' },
    };
    expect(sandboxView(options).tools).toEqual([node]);
  });
});

describe('lookupAccount', () => {
  const passwd = 'root:x:0:0::/root:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/false\n';
  it('finds an account by name or uid with its primary group', () => {
    expect(lookupAccount('nobody', passwd)).toEqual({ name: 'nobody', uid: 65534, gid: 65534 });
    expect(lookupAccount('65534', passwd)?.name).toBe('nobody');
    expect(lookupAccount('kiln-runner-job', passwd)).toBeUndefined();
  });
});
