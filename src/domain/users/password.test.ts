import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  hashPassword,
  hashThreads,
  setHashThreadIdleMs,
  verifyNothing,
  verifyPassword,
} from './password.ts';

/** Niceness of each thread of this process by thread id, from /proc (field 19 of its stat). */
async function threadNiceness(): Promise<Map<string, number>> {
  const niceness = new Map<string, number>();
  for (const task of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${task}/stat`, 'utf8').catch(() => '');
    if (stat) niceness.set(task, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return niceness;
}

/** Waits up to 10 s for the hashing threads to number `count`. */
async function threadsBecome(count: number): Promise<number> {
  for (let waited = 0; waited < 10_000 && hashThreads() !== count; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return hashThreads();
}

describe('password hashing', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
    expect(await verifyNothing('correct horse')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$16384$8$1$AAAA$')).toBe(false);
  });

  it('hashes at a lower priority than the thread that answers requests', async () => {
    const main = (await threadNiceness()).get(String(process.pid)) ?? 0;
    let lowest = main;
    for (let round = 0; round < 20 && lowest === main; round++) {
      const hashing = Promise.all([hashPassword('a'), hashPassword('b')]);
      let done = false;
      void hashing.then(() => {
        done = true;
      });
      while (!done) {
        for (const nice of (await threadNiceness()).values()) lowest = Math.max(lowest, nice);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    // A higher niceness is a lower priority; the thread answering requests keeps its own.
    expect(lowest).toBeGreaterThan(main);
    expect((await threadNiceness()).get(String(process.pid))).toBe(main);
  });

  it('keeps hashing when many wait at once', async () => {
    const stored = await hashPassword('p');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => verifyPassword(i % 2 ? 'p' : 'q', stored)),
    );
    expect(results).toEqual([false, true, false, true, false, true, false, true]);
  });

  it('starts a hashing thread with the first hash and stops it once idle', async () => {
    setHashThreadIdleMs(200);
    try {
      expect(await threadsBecome(0)).toBe(0);
      const stored = await hashPassword('first');
      expect(hashThreads()).toBeGreaterThan(0);
      expect(await threadsBecome(0)).toBe(0);
      // The next hash starts a thread again, and works.
      expect(await verifyPassword('first', stored)).toBe(true);
      expect(hashThreads()).toBeGreaterThan(0);
    } finally {
      setHashThreadIdleMs(60_000);
    }
  });

  it('hashes that come while idle threads stop still get a thread', async () => {
    setHashThreadIdleMs(1);
    try {
      for (let round = 0; round < 6; round++) {
        const hashes = [hashPassword(`a${round}`), hashPassword(`b${round}`)];
        expect(await Promise.all(hashes)).toHaveLength(2);
        await new Promise((resolve) => setTimeout(resolve, round % 4));
      }
    } finally {
      setHashThreadIdleMs(60_000);
    }
  }, 30_000);
});
