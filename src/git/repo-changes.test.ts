import { describe, expect, it } from 'vitest';
import {
  noteRepositoryChange,
  REUSE_WINDOW_MS,
  RecentReadings,
  repositoryClock,
} from './repo-changes.ts';

/** A reader that counts its calls and answers with that count. */
function counter() {
  let calls = 0;
  return {
    read: async () => {
      calls += 1;
      return calls;
    },
    get calls() {
      return calls;
    },
  };
}

describe('RecentReadings', () => {
  it('shares a reading within the window, per repository, and reads again after it', async () => {
    const readings = new RecentReadings<number>(repositoryClock, 10);
    const a = counter();
    const b = counter();
    expect(await readings.read('/a', a.read, 100)).toBe(1);
    expect(await readings.read('/a', a.read, 100 + REUSE_WINDOW_MS / 2)).toBe(1);
    expect(await readings.read('/b', b.read, 100)).toBe(1);
    expect(await readings.read('/a', a.read, 100 + REUSE_WINDOW_MS)).toBe(2);
    expect([a.calls, b.calls]).toEqual([2, 1]);
  });

  it('reads again at once after Kiln changed a repository, even inside the window', async () => {
    const readings = new RecentReadings<number>(repositoryClock, 10);
    const a = counter();
    expect(await readings.read('/a', a.read, 100)).toBe(1);
    noteRepositoryChange();
    expect(await readings.read('/a', a.read, 100)).toBe(2);
    expect(await readings.read('/a', a.read, 100)).toBe(2);
  });

  it('shares a reading still under way, unless a change was made since it began', async () => {
    const readings = new RecentReadings<string>(repositoryClock, 10);
    let finish: (value: string) => void = () => {};
    let calls = 0;
    const slow = () => {
      calls += 1;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    };
    const first = readings.read('/a', slow, 100);
    const joined = readings.read('/a', slow, 100);
    expect(calls).toBe(1);
    noteRepositoryChange();
    const after = readings.read('/a', async () => 'after the change', 100);
    finish('before the change');
    expect(await first).toBe('before the change');
    expect(await joined).toBe('before the change');
    expect(await after).toBe('after the change');
  });

  it('does not share a reading that failed once it has failed', async () => {
    const readings = new RecentReadings<number>(repositoryClock, 10);
    const failing = readings.read('/a', async () => Promise.reject(new Error('gone')), 100);
    await expect(failing).rejects.toThrow('gone');
    expect(await readings.read('/a', async () => 7, 100)).toBe(7);
  });
});
