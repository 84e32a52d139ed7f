/**
 * SERVICE_ADMIN_HANDLES never hands admin rights to whoever registers first: listed handles are
 * reserved against sign-up (any letter case), the operator may still create them, and start-up
 * logs one warning per listed handle that no account holds.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_ADMIN_HANDLES: 'boss,chief',
    SERVICE_LOG_LEVEL: 'warn',
  });
});
afterAll(async () => {
  await kiln?.close();
});

/** The warnings a freshly built server logs at start-up. */
async function startUpWarnings(): Promise<string[]> {
  const logStream = new PassThrough();
  let text = '';
  logStream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const server = await buildServer(kiln.app, { logStream });
  await server.close();
  return text
    .split('\n')
    .filter((line) => line.includes('SERVICE_ADMIN_HANDLES'))
    .map((line) => JSON.parse(line).handle as string);
}

describe('SERVICE_ADMIN_HANDLES', () => {
  it('refuses to sign anyone up under a listed handle', async () => {
    for (const username of ['boss', 'CHIEF']) {
      const browser = new Browser(kiln.url);
      await browser.get('/signup');
      const response = await browser.post('/signup', {
        username,
        email: `${username}@example.test`,
        password: 'password123',
      });
      expect(response.status).toBe(422);
      expect(await response.text()).toContain('reserved');
      await expect(kiln.app.services.users.findAccount(username)).resolves.toBeUndefined();
    }
  });

  it('warns once per unclaimed handle at start-up, and the operator may create them', async () => {
    expect((await startUpWarnings()).sort()).toEqual(['boss', 'chief']);
    await kiln.make.user({ handle: 'boss' });
    expect(await startUpWarnings()).toEqual(['chief']);
    expect(kiln.app.services.admins.isAdmin(await kiln.app.services.users.getUser('boss'))).toBe(
      true,
    );
  });
});
