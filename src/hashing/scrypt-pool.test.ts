import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { hashThreads, scryptOffThread, setHashThreadIdleMs } from './scrypt-pool.ts';

const COST = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** One scrypt of the cost passwords are stored with. */
function hash(password: string): Promise<Buffer> {
  return scryptOffThread(password, Buffer.from('salt'), 32, COST);
}

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

describe('hashing threads', () => {
  it('hashes at a lower priority than the thread that answers requests', async () => {
    const main = (await threadNiceness()).get(String(process.pid)) ?? 0;
    let lowest = main;
    for (let round = 0; round < 20 && lowest === main; round++) {
      const hashing = Promise.all([hash('a'), hash('b')]);
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

  it('starts a hashing thread with the first hash and stops it once idle', async () => {
    setHashThreadIdleMs(200);
    try {
      expect(await threadsBecome(0)).toBe(0);
      const first = await hash('first');
      expect(hashThreads()).toBeGreaterThan(0);
      expect(await threadsBecome(0)).toBe(0);
      // The next hash starts a thread again, and works.
      expect(await hash('first')).toEqual(first);
      expect(hashThreads()).toBeGreaterThan(0);
    } finally {
      setHashThreadIdleMs(60_000);
    }
  });

  it('hashes that come while idle threads stop still get a thread', async () => {
    setHashThreadIdleMs(1);
    try {
      for (let round = 0; round < 6; round++) {
        const hashes = [hash(`a${round}`), hash(`b${round}`)];
        expect(await Promise.all(hashes)).toHaveLength(2);
        await new Promise((resolve) => setTimeout(resolve, round % 4));
      }
    } finally {
      setHashThreadIdleMs(60_000);
    }
  }, 30_000);
});
