import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ensureSecretKeyFile,
  KEY_CHECK_FILE,
  readSecretKeyFile,
  SECRET_KEY_FILE,
} from '../../lib/secret-key-file.ts';
import { keyCheck, writeKeyCheck } from './key-check.ts';

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-key-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the data directory secret key', () => {
  it('is made once, 32 random bytes, private to its user, and read back the same', () => {
    const dir = scratch();
    expect(readSecretKeyFile(dir)).toBeUndefined();
    const first = ensureSecretKeyFile(dir);
    expect(first.created).toBe(true);
    expect(Buffer.from(first.key, 'base64url')).toHaveLength(32);
    expect(statSync(join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(ensureSecretKeyFile(dir)).toEqual({ key: first.key, created: false });
    expect(readSecretKeyFile(dir)).toBe(first.key);
    expect(ensureSecretKeyFile(scratch()).key).not.toBe(first.key);
  });

  it('opens the check only with the key it was sealed under, which is never replaced', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (key, other) => {
        const dir = scratch();
        expect(keyCheck(dir, key)).toBe('unchecked');
        writeKeyCheck(dir, key);
        writeKeyCheck(dir, other);
        expect(keyCheck(dir, key)).toBe('ok');
        expect(keyCheck(dir, undefined)).toBe('no key');
        expect(keyCheck(dir, other)).toBe(key === other ? 'ok' : 'mismatch');
      }),
      { numRuns: 30 },
    );
  });

  it('calls a damaged check a mismatch rather than failing', () => {
    const dir = scratch();
    writeFileSync(join(dir, KEY_CHECK_FILE), 'v1:not:a:box\n');
    expect(keyCheck(dir, 'k')).toBe('mismatch');
  });
});
