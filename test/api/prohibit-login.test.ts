/**
 * `GET /api/v1/users/{name}` tells a site administrator that a person is disabled
 * (`prohibit_login: true`, as `kiln user disable` leaves them), and tells nobody else: as in
 * Gitea, other callers always read `false`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ADMIN = 'siteboss';
let kiln: TestServer;
let adminToken: string;
let otherToken: string;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_ADMIN_HANDLES: ADMIN });
  ({ token: adminToken } = await kiln.make.userWithToken({ handle: ADMIN }));
  ({ token: otherToken } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await kiln?.close();
});

async function prohibitLogin(handle: string, token?: string): Promise<unknown> {
  const answer = await apiCall(kiln.url, `/users/${handle}`, { token });
  expect(answer.status).toBe(200);
  return answer.body.prohibit_login;
}

describe('prohibit_login on the user record', () => {
  it('is true for a disabled person, to a site administrator only, and false again once enabled', async () => {
    const { user } = await kiln.make.user();
    expect(await prohibitLogin(user.handle, adminToken)).toBe(false);

    await kiln.app.services.users.setDisabled(user, true);
    expect(await prohibitLogin(user.handle, adminToken)).toBe(true);
    expect(await prohibitLogin(user.handle, otherToken)).toBe(false);
    expect(await prohibitLogin(user.handle)).toBe(false);

    await kiln.app.services.users.setDisabled(user, false);
    expect(await prohibitLogin(user.handle, adminToken)).toBe(false);
  });

  it('is false for an organisation', async () => {
    const { user } = await kiln.make.user();
    const org = await kiln.make.org(user);
    expect(await prohibitLogin(org.handle, adminToken)).toBe(false);
  });
});
