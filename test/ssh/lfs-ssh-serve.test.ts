/**
 * `kiln serve` answers `git-lfs-authenticate` over its SSH server with the LFS address on the
 * base URL it derived from its loopback listening address, and its HTTP server takes the grant.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { batchBody, LFS_HEADERS } from '../lfs/lfs-client.ts';
import { createDeployment, type Deployment } from '../replicas/kiln-process.ts';
import { eventually } from '../support/eventually.ts';
import { makeKeyPair, removeKeyPairs, runSsh } from './ssh-support.ts';

let deployment: Deployment;
beforeAll(async () => {
  deployment = await createDeployment({ SERVICE_LOG_LEVEL: 'silent' });
});
afterAll(async () => {
  await deployment?.dispose();
  removeKeyPairs();
});

it('hands out a grant that its own LFS API accepts', async () => {
  const kiln = await deployment.start();
  const line = /^ssh listening on 127\.0\.0\.1:(\d+)$/m;
  await eventually(async () => line.test(kiln.stdout()), 30_000);
  const port = Number(line.exec(kiln.stdout())?.[1]);
  const { app, make } = await deployment.open();
  const { user } = await make.user();
  const pair = makeKeyPair();
  await app.services.sshKeys.addUserKey(user, { title: 'laptop', key: pair.publicKey });
  await app.services.repos.create(user, { name: 'models', private: true, autoInit: true });

  const answered = await runSsh(pair, port, `git-lfs-authenticate ${user.handle}/models download`);
  expect(answered.code, answered.stderr).toBe(0);
  const answer = JSON.parse(answered.stdout);
  expect(answer.href).toBe(`${kiln.url}/${user.handle}/models.git/info/lfs`);
  const batch = await fetch(`${answer.href}/objects/batch`, {
    method: 'POST',
    headers: { ...LFS_HEADERS, ...answer.header },
    body: batchBody('download', [{ oid: 'c'.repeat(64), size: 1 }]),
  });
  expect(batch.status).toBe(200);
  expect((await batch.json()).objects[0].error.code).toBe(404);
}, 90_000);
