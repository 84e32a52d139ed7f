import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ssh2, ssh2AddonLoaded } from './ssh2-package.ts';

describe('ssh2 as Kiln loads it', () => {
  it('never loads the compiled addon, built or not', () => {
    expect(ssh2AddonLoaded()).toBe(false);
    // Asked for the way ssh2's crypto module asks, the addon is refused by name: a missing
    // build would fail with Node's own message instead.
    const crypto = fileURLToPath(import.meta.resolve('ssh2/lib/protocol/crypto.js'));
    expect(() => createRequire(crypto)('./crypto/build/Release/sshcrypto.node')).toThrow(
      /without its compiled addon/,
    );
  });

  it('still parses keys and offers its server', () => {
    const { utils, Server } = ssh2();
    const key = utils.generateKeyPairSync('ed25519');
    expect(utils.parseKey(key.public)).not.toBeInstanceOf(Error);
    expect(typeof Server).toBe('function');
  });
});

describe('the way to ssh2', () => {
  it('is this module alone: elsewhere ssh2 is named for its types only', () => {
    const src = fileURLToPath(new URL('..', import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.includes('ssh2-package.'),
    );
    // Any mention of the package as a string that is not an `import type … from 'ssh2'`.
    const loads = files.filter((file) =>
      readFileSync(join(src, file), 'utf8')
        .split('\n')
        .some((line) => /['"]ssh2(\/[^'"]*)?['"]/.test(line) && !/^import type /.test(line)),
    );
    expect(loads).toEqual([]);
  });
});
