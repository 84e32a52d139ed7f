/**
 * Property-based hostile input over smart HTTP: adversarial owner and repository segments,
 * `service` values, `Git-Protocol` and credential headers, and request bodies that are random
 * bytes, broken pkt-lines, pkt-lines that announce more than they carry, and gzip that is not.
 * Never a 5xx; the process stays up and bounded.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  expectHealthy,
  expectNoServerError,
  fillRoute,
  type HostileWorld,
  headers,
  method,
  runs,
  segment,
  send,
  useHostileWorld,
} from './support.ts';

let world: HostileWorld;
useHostileWorld((started) => {
  world = started;
});

const pkt = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;

const packBody: fc.Arbitrary<{ body: Buffer; gzip: boolean }> = fc.record({
  gzip: fc.boolean(),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)),
    fc
      .array(fc.string({ maxLength: 80 }), { maxLength: 8 })
      .map((lines) => Buffer.from(`${lines.map(pkt).join('')}0000`)),
    fc
      .constantFrom(
        'ffff',
        '0004',
        '0001',
        'zzzz',
        `${pkt('want 0000000000000000000000000000000000000000\n')}0000${pkt('done\n')}`,
        `${pkt('want zzzz\n')}0000`,
        `${pkt('command=ls-refs\n')}0001${pkt('ref-prefix --upload-pack=x\n')}0000`,
        `${pkt('command=fetch\n')}0001${pkt('want HEAD\n')}${pkt('deepen -1\n')}0000`,
        `${pkt('0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 refs/heads/x\0report-status')}0000PACK`,
        'PACK\0\0\0\u0002\0\0\0\u0005',
      )
      .map((text) => Buffer.from(text, 'latin1')),
  ),
});

describe('hostile input on smart HTTP', () => {
  it('never answers 5xx, stays up and bounded', async () => {
    const routes = world.routes.filter((route) => route.url.startsWith('/:owner/:name'));
    const real = { owner: world.owner, name: `${world.repo}.git`, '*': '/objects/info/packs' };
    const request = fc.constantFrom(...routes).chain((route) =>
      fc.record({
        method: fc.oneof(
          { weight: 4, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: method },
        ),
        path: fc
          .tuple(
            fillRoute(route.url, real),
            fc.option(
              fc.oneof(
                fc.constantFrom('git-upload-pack', 'git-receive-pack', 'git-upload-archive'),
                segment,
              ),
              { nil: undefined },
            ),
          )
          .map(([path, service]) => (service === undefined ? path : `${path}?service=${service}`)),
        credentials: fc.constantFrom('none', 'token', 'garbage'),
        headers,
        contentType: fc.constantFrom(
          'application/x-git-upload-pack-request',
          'application/x-git-receive-pack-request',
          'text/plain',
          '',
        ),
        pack: fc.option(packBody, { nil: undefined }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const auth =
          r.credentials === 'token'
            ? `Basic ${Buffer.from(`${world.token}:`).toString('base64')}`
            : r.credentials === 'garbage'
              ? 'Basic %%%'
              : undefined;
        const body =
          r.pack &&
          (r.pack.gzip
            ? gzipSync(r.pack.body).subarray(0, Math.max(10, r.pack.body.length))
            : r.pack.body);
        const status = await send(world.kiln, {
          method: r.method,
          path: r.path,
          headers: [
            ...(auth ? [['authorization', auth] as const] : []),
            ...(r.contentType ? [['content-type', r.contentType] as const] : []),
            ...(r.pack?.gzip ? [['content-encoding', 'gzip'] as const] : []),
            ...r.headers,
          ],
          ...(body ? { body } : {}),
        });
        expectNoServerError(status, `${r.method} ${r.path}`);
      }),
      runs(800, [
        ...['git-upload-pack', 'git-receive-pack'].flatMap((service) =>
          [Buffer.from('garbage'), Buffer.from([136, 156, 198]), undefined].map((body) => ({
            method: 'POST',
            path: `/${world.owner}/${world.repo}.git/${service}`,
            credentials: 'token' as const,
            headers: [],
            contentType:
              service === 'git-upload-pack'
                ? ('application/x-git-upload-pack-request' as const)
                : ('application/x-git-receive-pack-request' as const),
            pack: body === undefined ? undefined : { gzip: false, body },
          })),
        ),
      ]),
    );
    await expectHealthy(world);
  }, 120_000);
});
