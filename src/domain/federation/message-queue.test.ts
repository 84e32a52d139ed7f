import { describe, expect, it } from 'vitest';
import { KyselyMessageQueue, type MessageStore } from './message-queue.ts';
import type { ClaimedMessage } from './queue.store.ts';

/** The queue's rows in memory, with a way to make the next call of one method fail. */
function memoryStore() {
  const rows: { id: string; message: string; runAt: number; attempts: number }[] = [];
  const failNext = new Set<'claim' | 'release'>();
  const fail = (method: 'claim' | 'release') => {
    if (!failNext.delete(method)) return;
    throw new Error(`${method}: Connection terminated unexpectedly`);
  };
  const store: MessageStore = {
    async insertMany(messages, runAt) {
      for (const message of messages)
        rows.push({ id: String(rows.length), message, runAt, attempts: 0 });
    },
    async listRunAts() {
      return rows.map((row) => row.runAt);
    },
    async claim(now, leaseMs): Promise<ClaimedMessage | undefined> {
      fail('claim');
      const row = rows.find((candidate) => candidate.runAt <= now);
      if (!row) return undefined;
      row.attempts += 1;
      row.runAt = now + leaseMs;
      return { id: row.id, message: row.message, attempts: row.attempts, lease: row.runAt };
    },
    async delete(id) {
      rows.splice(
        rows.findIndex((row) => row.id === id),
        1,
      );
    },
    async release(claimed, runAt) {
      fail('release');
      const row = rows.find((candidate) => candidate.id === claimed.id);
      if (row) row.runAt = runAt;
    },
  };
  return { store, rows, failNext };
}

describe('KyselyMessageQueue.listen', () => {
  it('keeps listening after the database refuses a claim or a release', async () => {
    const { store, rows, failNext } = memoryStore();
    const reported: unknown[] = [];
    const queue = new KyselyMessageQueue(store, {
      pollIntervalMs: 5,
      backoffMs: 5,
      report: (error) => reported.push(error),
    });
    const ran: string[] = [];
    const controller = new AbortController();
    const listening = queue.listen(
      async (message) => {
        const { n } = message as { n: string };
        ran.push(n);
        if (n === 'flaky' && ran.length === 2) throw new Error('remote down');
      },
      { signal: controller.signal },
    );
    failNext.add('claim');
    await queue.enqueue({ n: 'first' });
    await expect.poll(() => ran).toEqual(['first']);
    // A failing handler's message is handed back; that release failing must not stop anything.
    failNext.add('release');
    await queue.enqueue({ n: 'flaky' });
    await expect.poll(() => ran).toEqual(['first', 'flaky']);
    await queue.enqueue({ n: 'after' });
    await expect.poll(() => ran).toContain('after');
    controller.abort();
    await listening;
    expect(reported.map(String)).toEqual([
      'Error: claim: Connection terminated unexpectedly',
      'Error: release: Connection terminated unexpectedly',
    ]);
    // The message whose release failed stays held until its lease runs out.
    expect(rows.map((row) => JSON.parse(row.message).n)).toEqual(['flaky']);
  });
});
