/**
 * A grant from `git-lfs-authenticate` opens one repository, for one operation, until it
 * expires, and only while its key lasts: generated pairs of grant and request, ages and altered
 * characters against the real LFS API.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LFS_SSH_GRANT_SECONDS } from '../../src/domain/lfs/lfs-ssh-grant.ts';
import { batchBody, LFS_HEADERS } from '../lfs/lfs-client.ts';
import { apiCall } from '../support/http.ts';
import { useLfsSshWorld } from './lfs-ssh-world.ts';

const world = useLfsSshWorld();
const { kiln, owner, reader, keys, authenticate } = world;

describe('a grant', () => {
  const repos = ['art', 'other'] as const;
  const operations = ['upload', 'download'] as const;
  type Grant = { repo: string; operation: string; authorization: string };
  const grants: Grant[] = [];

  /** The status of a batch request for `operation` on `repo` with `authorization`. */
  const batch = async (repo: string, operation: string, authorization: string) => {
    const response = await fetch(
      `${kiln().url}/${owner().user.handle}/${repo}.git/info/lfs/objects/batch`,
      {
        method: 'POST',
        headers: { ...LFS_HEADERS, authorization },
        body: batchBody(operation as 'upload', [{ oid: 'b'.repeat(64), size: 5 }]),
      },
    );
    await response.arrayBuffer();
    return response.status;
  };

  it('opens its one repository for its one operation, and no other', async () => {
    for (const repo of repos) {
      for (const operation of operations) {
        const answered = await authenticate(keys.owner, repo, operation);
        expect(answered.code, answered.stderr).toBe(0);
        const { header } = JSON.parse(answered.stdout);
        grants.push({ repo, operation, authorization: header.Authorization });
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...grants),
        fc.constantFrom(...repos),
        fc.constantFrom(...operations),
        async (grant, repo, operation) => {
          const status = await batch(repo, operation, grant.authorization);
          const mine = grant.repo === repo && grant.operation === operation;
          expect(status === 200, `${grant.repo}/${grant.operation} on ${repo}/${operation}`).toBe(
            mine,
          );
        },
      ),
      { numRuns: 24 },
    );
  });

  it('is refused once expired, or changed in any character', async () => {
    const services = kiln().app.services;
    const [grant] = grants;
    if (!grant) throw new Error('no grant');
    const token = grant.authorization.slice('Bearer '.length);
    const claims = services.lfsSshGrants.verify(token);
    if (!claims) throw new Error('the grant does not verify');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 * LFS_SSH_GRANT_SECONDS }), async (age) => {
        const minted = services.lfsSshGrants.mint(claims, Date.now() - age * 1000);
        const status = await batch(grant.repo, grant.operation, `Bearer ${minted}`);
        if (age < LFS_SSH_GRANT_SECONDS - 5) expect(status, `age ${age}`).toBe(200);
        if (age >= LFS_SSH_GRANT_SECONDS) expect(status, `age ${age}`).toBe(401);
      }),
      { numRuns: 20 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 'kiln-lfs-ssh:'.length, max: token.length - 1 }),
        fc.constantFrom(...'AQgw_-xyz0'),
        async (at, character) => {
          fc.pre(token[at] !== character);
          const changed = `${token.slice(0, at)}${character}${token.slice(at + 1)}`;
          const status = await batch(grant.repo, grant.operation, `Bearer ${changed}`);
          expect(status, changed).toBe(401);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('dies with its key', async () => {
    const answered = await authenticate(keys.reader, 'art', 'download');
    const { header } = JSON.parse(answered.stdout);
    expect(await batch('art', 'download', header.Authorization)).toBe(200);
    const listed = await apiCall(kiln().url, '/user/keys', { token: reader().token });
    for (const key of listed.body) {
      await apiCall(kiln().url, `/user/keys/${key.id}`, {
        method: 'DELETE',
        token: reader().token,
      });
    }
    expect(await batch('art', 'download', header.Authorization)).toBe(401);
  });
});
