/**
 * Property-based hostile input over the rendered pages and their forms: adversarial path
 * segments and queries on every page route, anonymous and signed in, and form posts whose fields
 * are random, wrongly encoded or huge, with and without a matching CSRF pair. Never a 5xx; the
 * process stays up and bounded.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  contentType,
  expectHealthy,
  expectNoServerError,
  fillRoute,
  type HostileWorld,
  headers,
  method,
  query,
  runs,
  segment,
  send,
  useHostileWorld,
} from './support.ts';

let world: HostileWorld;
useHostileWorld((started) => {
  world = started;
});

const FIELDS = [
  'name',
  'description',
  'private',
  'login',
  'password',
  'redirect',
  'q',
  'value',
  'branch',
  'collaborator',
  'permission',
  'email',
  'username',
  'h-captcha-response',
  'default_branch',
  'title',
  'confirm',
];

const formBody = (csrf: string | undefined): fc.Arbitrary<Buffer> =>
  fc.oneof(
    fc.dictionary(fc.constantFrom(...FIELDS), segment, { maxKeys: 6 }).map((fields) => {
      const pairs = Object.entries(fields).map(([k, v]) => `${k}=${v}`);
      if (csrf) pairs.push(`_csrf=${csrf}`);
      return Buffer.from(pairs.join('&'), 'latin1');
    }),
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc.integer({ min: 1, max: 50_000 }).map((n) => Buffer.from(`${'a[b]'.repeat(n)}=1`)),
    fc.constant(Buffer.from(`name=${'x'.repeat(2_000_000)}`)),
  );

describe('hostile input on pages and forms', () => {
  it('never answers 5xx, stays up and bounded', async () => {
    const routes = world.routes.filter(
      (route) =>
        !route.url.startsWith('/api/') &&
        !route.url.startsWith('/:owner/:name') &&
        !['/metrics', '/healthz'].includes(route.url),
    );
    const real = {
      owner: world.owner,
      name: world.repo,
      number: '1',
      sha: 'main',
      id: '1',
      secret: 'A',
      variable: 'A',
      '*': '/main/README.md',
    };
    const request = fc.constantFrom(...routes).chain((route) =>
      fc
        .record({
          method: fc.oneof(
            { weight: 5, arbitrary: fc.constant(route.method) },
            { weight: 1, arbitrary: method },
          ),
          path: fc.tuple(fillRoute(route.url, real), query).map(([path, q]) => path + q),
          signedIn: fc.boolean(),
          csrf: fc.boolean(),
          contentType: fc.oneof(
            { weight: 4, arbitrary: fc.constant('application/x-www-form-urlencoded') },
            { weight: 1, arbitrary: contentType },
          ),
          headers,
        })
        .chain((r) =>
          formBody(r.csrf ? world.session.csrf : undefined).map((body) => ({ ...r, body })),
        ),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const posting = r.method !== 'GET' && r.method !== 'HEAD';
        const status = await send(world.kiln, {
          method: r.method,
          path: r.path,
          headers: [
            ...(r.signedIn ? [['cookie', world.session.cookie] as const] : []),
            ...(posting && r.contentType ? [['content-type', r.contentType] as const] : []),
            ...r.headers,
          ],
          ...(posting ? { body: r.body } : {}),
        });
        expectNoServerError(status, `${r.method} ${r.path}`);
      }),
      runs(500),
    );
    await expectHealthy(world);
  }, 120_000);
});
