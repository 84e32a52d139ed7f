/**
 * Closing Kiln right after a push: what the push set going (pull refs, CI, housekeeping, and
 * the webhook deliveries queued after them) finishes before the database closes, so nothing
 * reports a failure against a closed database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repoUrl } from '../support/git.ts';
import { startWorld } from '../support/world.ts';
import { Receiver } from './receiver.ts';

let receiver: Receiver | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await receiver?.close();
});

/** Everything Kiln writes to stderr from now on. */
function captureStderr(): string[] {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk, ...rest) => {
    lines.push(String(chunk));
    return write(chunk, ...(rest as []));
  });
  return lines;
}

describe('closing after a push', () => {
  it('queues the push’s webhook work before the database closes', async () => {
    receiver = await Receiver.start();
    const world = await startWorld({
      env: { SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback' },
      people: ['owner'],
      repos: [{ owner: 'owner', name: 'app', autoInit: true }],
    });
    const { user, token } = world.people.owner;
    const stderr = captureStderr();
    let closed = false;
    try {
      const hook = await fetch(`${world.kiln.url}/api/v1/repos/${user.handle}/app/hooks`, {
        method: 'POST',
        headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'gitea',
          config: { url: receiver.url, content_type: 'json' },
          events: ['push', 'create'],
          active: true,
        }),
      });
      expect(hook.status).toBe(201);
      const url = repoUrl(world.kiln.url, user.handle, 'app', { token, as: 'username' });
      const work = await world.git.clone(url);
      await world.git.commit(work, { '.gitea/workflows/ci.yml': 'on: push\n' }, 'add ci');
      await world.git.ok(['push', '-q', 'origin', 'main', 'main:feature'], { cwd: work });
      await world.close();
      closed = true;
    } finally {
      if (!closed) await world.close();
    }
    // Work that outlived close would report within moments; give it that long to show.
    await sleep(1_000);
    expect(stderr.filter((line) => line.includes('failed'))).toEqual([]);
  });
});
