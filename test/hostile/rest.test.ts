/**
 * Property-based hostile input over every REST route under /api/v1: adversarial path segments,
 * query strings, headers, methods and JSON bodies (wrong types, truncated, nested a hundred
 * thousand deep, invalid UTF-8, over the body limit). Never a 5xx; afterwards the process is
 * alive, answers /healthz, and its memory stayed bounded.
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
  jsonBody,
  method,
  query,
  runs,
  send,
  useHostileWorld,
} from './support.ts';

const FIELDS = [
  'title',
  'body',
  'head',
  'base',
  'state',
  'name',
  'private',
  'auto_init',
  'default_branch',
  'description',
  'tag_name',
  'target_commitish',
  'prerelease',
  'draft',
  'permission',
  'branch_name',
  'rule_name',
  'path',
  'line',
  'new_position',
  'old_position',
  'Do',
  'organization',
  'context',
  'target_url',
  'comments',
  'event',
  'commit_id',
  'enable_status_check',
  'status_check_contexts',
  'data',
  'value',
];

let world: HostileWorld;
useHostileWorld((started) => {
  world = started;
});

describe('hostile input on the REST API', () => {
  it('never answers 5xx, stays up and bounded', async () => {
    const routes = world.routes.filter((route) => route.url.startsWith('/api/v1/'));
    const real = {
      owner: world.owner,
      name: world.repo,
      number: '1',
      id: '1',
      sha: 'main',
      org: world.owner,
      username: world.owner,
      collaborator: world.owner,
      '*': 'tags/v1',
    };
    const request = fc.constantFrom(...routes).chain((route) =>
      fc.record({
        method: fc.oneof(
          { weight: 4, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: method },
        ),
        path: fc.tuple(fillRoute(route.url, real), query).map(([path, q]) => path + q),
        auth: fc.boolean(),
        headers,
        contentType,
        body: fc.option(jsonBody(FIELDS), { nil: undefined }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const status = await send(world.kiln, {
          method: r.method,
          path: r.path,
          headers: [
            ...(r.auth ? [['authorization', `token ${world.token}`] as const] : []),
            ...(r.contentType ? [['content-type', r.contentType] as const] : []),
            ...r.headers,
          ],
          ...(r.body ? { body: r.body } : {}),
        });
        expectNoServerError(status, `${r.method} ${r.path}`);
      }),
      runs(1000, [
        {
          method: 'GET',
          path: '/api/v1/repos/search?page=1&page=2&limit=1&limit=2',
          auth: true,
          headers: [],
          contentType: '',
          body: undefined,
        },
      ]),
    );
    await expectHealthy(world);
  }, 120_000);

  it('refuses bodies over the limit without holding them', async () => {
    const big = Buffer.alloc(6 * 2 ** 20, 'a');
    for (let i = 0; i < 5; i++) {
      const status = await send(world.kiln, {
        method: 'POST',
        path: '/api/v1/user/repos',
        headers: [
          ['authorization', `token ${world.token}`],
          ['content-type', 'application/json'],
        ],
        body: big,
      });
      expectNoServerError(status, 'oversized body');
    }
    await expectHealthy(world);
  });
});
