import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runGit } from './command.ts';
import { KILN_HOOKS_DIR } from './kiln-hooks.ts';
import { PINNED_CONFIG_KEYS } from './pinned-config.ts';
import { useTestRepo } from './test-support.ts';

/**
 * Every git Kiln starts reads the pinned keys from its command line, whatever the repository's
 * config says: a config written by anyone else runs nothing through them.
 */

const fixture = useTestRepo();

/** The value git sees for `key` in the repository, through Kiln's runner. */
async function seen(key: string): Promise<string> {
  const { stdout } = await runGit(['config', '--get', key], {
    gitDir: fixture.repo.path,
    okExitCodes: [0, 1],
  });
  return stdout.toString('utf8').trim();
}

describe('the config pinned on every git', () => {
  it("outranks the repository's own config for every pinned key", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...PINNED_CONFIG_KEYS], { minLength: 1 }),
        fc.stringMatching(/^[a-z/]{1,12}$/),
        async (keys, word) => {
          const evil = `/tmp/evil-${word}`;
          const lines = keys.map((key) => {
            const [section, ...rest] = key.split('.');
            const name = rest.pop()!;
            const head = rest.length > 0 ? `[${section} "${rest.join('.')}"]` : `[${section}]`;
            return `${head}\n\t${name} = ${evil}\n`;
          });
          await appendFile(path.join(fixture.repo.path, 'config'), lines.join(''));
          for (const key of keys) expect(await seen(key)).not.toBe(evil);
        },
      ),
      { numRuns: 8 },
    );
    expect(await seen('core.hooksPath')).toBe(KILN_HOOKS_DIR);
  });

  it('may not be set again by a caller, nor overridden through the environment', async () => {
    await expect(
      runGit(['-c', 'core.hooksPath=/tmp/x', 'status'], { gitDir: fixture.repo.path }),
    ).rejects.toThrow(/pinned/);
    for (const name of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_PARAMETERS', 'GIT_EXEC_PATH', 'GIT_SSH']) {
      await expect(
        runGit(['status'], { gitDir: fixture.repo.path, env: { [name]: '1' } }),
      ).rejects.toThrow(/may not be set/);
    }
  });
});
