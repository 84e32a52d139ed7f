import { describe, expect, it } from 'vitest';
import { hashPassword, verifyNothing, verifyPassword } from './password.ts';

describe('password hashing', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyNothing('correct horse')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$16384$8$1$AAAA$')).toBe(false);
  });

  it('keeps hashing when many wait at once', async () => {
    const stored = await hashPassword('p');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => verifyPassword(i % 2 ? 'p' : 'q', stored)),
    );
    expect(results).toEqual([false, true, false, true, false, true, false, true]);
  });
});
