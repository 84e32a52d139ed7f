/**
 * Sign-up answers alike whether or not the e-mail address belongs to an account: for every mix
 * of the other fields (fresh, taken, reserved and invalid names; good and short passwords), a
 * taken address and a free one get the same status, headers and page, up to the values the
 * form echoes and the secrets each answer mints.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { unrecordedAddress } from '../../src/domain/users/user.service.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let held: { handle: string; email: string };
let serial = 0;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_AUTH_LOGIN_ADDRESS_LIMIT: '100000' });
  const { user } = await kiln.make.user();
  held = { handle: user.handle, email: user.email };
});
afterAll(async () => {
  await kiln?.close();
});

/** Names of one length, so that the pages compare without padding. */
const fresh = (prefix: string) => `${prefix}${String(++serial).padStart(6, '0')}`;

/** What one answer shows, with the values typed in and the minted secrets replaced. */
async function signUp(fields: { username: string; email: string; password: string }) {
  const browser = new Browser(kiln.url);
  await browser.get('/signup');
  const response = await browser.post('/signup', fields);
  const blank = (text: string) =>
    [fields.email, fields.username]
      .filter((typed) => typed !== '')
      .reduce((out, typed) => out.replaceAll(typed, '«typed»'), text)
      .replace(/[0-9a-f]{32,}/g, '«secret»')
      .replace(/=[^;]*/, '=«value»')
      .replace(/Expires=[^;]*/, 'Expires=«time»');
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (!['date', 'content-length', 'set-cookie'].includes(name)) {
      headers.push(`${name}: ${blank(value)}`);
    }
  });
  const cookies = response.headers.getSetCookie().map(blank);
  return { status: response.status, headers, cookies, body: blank(await response.text()) };
}

it('answers a taken and a free address alike, whatever the other fields are', async () => {
  const names = fc.constantFrom('fresh', 'taken', 'reserved', 'invalid', 'empty');
  const passwords = fc.constantFrom('correct horse battery', 'short');
  const casing = fc.constantFrom('as-is', 'upper');
  await fc.assert(
    fc.asyncProperty(names, passwords, casing, async (name, password, cased) => {
      const taken = cased === 'upper' ? held.email.toUpperCase() : held.email;
      const username = (n: string) =>
        ({ fresh: fresh('new'), taken: held.handle, reserved: 'admin', invalid: '<b>', empty: '' })[
          n
        ] ?? '';
      const free = `${fresh('x').padEnd(taken.length - '@example.test'.length, 'x')}@example.test`;
      const one = await signUp({ username: username(name), email: taken, password });
      const other = await signUp({ username: username(name), email: free, password });
      expect(one).toEqual(other);
    }),
    { numRuns: 40 },
  );
}, 120_000);

it('creates the account of a taken address without the address, which stays its holder’s', async () => {
  const username = fresh('late');
  const answer = await signUp({ username, email: held.email, password: 'correct horse battery' });
  expect(answer.status).toBe(303);
  const { users } = kiln.app.services;
  const made = await users.findAccount(username);
  expect(made?.email).toBe(unrecordedAddress(made?.id ?? ''));
  expect((await users.authenticate(held.email, 'correct horse battery'))?.handle).toBe(held.handle);
  expect(await users.authenticate(held.email, 'not the password')).toBeUndefined();
});
