import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import type { TestServer } from '../support/server.ts';
import { FediverseActor, startFederatedKiln } from './support.ts';

/** An administrator lists the servers Kiln knows and blocks one from the command line. */
describe('federation instances on the command line', () => {
  let kiln: TestServer;
  let remote: FediverseActor;
  let env: Record<string, string>;
  let inbox: string;
  let userPage: string;

  beforeAll(async () => {
    remote = new FediverseActor();
    await remote.start();
    kiln = await startFederatedKiln();
    const { config } = kiln.app;
    env = {
      SERVICE_DATA_DIR: config.dataDir,
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_BASE_URL: config.baseUrl?.href ?? '',
      SERVICE_SECRET_KEY: config.secretKey ?? '',
      SERVICE_FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...(config.databaseUrl ? { SERVICE_DATABASE_URL: config.databaseUrl } : {}),
    };
    const { user } = await kiln.make.user();
    inbox = `${kiln.url}/federation/users/${user.handle}/inbox`;
    userPage = `${kiln.url}/${user.handle}`;
  });
  afterAll(async () => {
    await kiln?.close();
    await remote?.stop();
  });

  it('lists a follower server, blocks it and lifts the block', async () => {
    const follow = { id: `${remote.id}#f`, type: 'Follow', actor: remote.id, object: userPage };
    expect((await remote.send(inbox, follow)).status).toBe(202);
    const host = new URL(remote.id).host;
    const listed = await runCli(['federation', 'hosts'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${host}\t1 followers\t0 stars\t1 actors seen\t`);
    expect(listed.stdout).toMatch(/\t\d+ pending\t0 failed\tok/);

    expect((await runCli(['federation', 'block', '--host', host], env)).code).toBe(0);
    expect((await runCli(['federation', 'hosts'], env)).stdout).toContain('blocked');
    // The running server rereads blocks every 15 s; asking it now stands in for the wait.
    await kiln.app.services.federation?.instances.refresh();
    expect((await remote.send(inbox, { ...follow, id: `${remote.id}#f2` })).status).toBe(403);

    expect((await runCli(['federation', 'unblock', '--host', host], env)).code).toBe(0);
    await kiln.app.services.federation?.instances.refresh();
    expect((await remote.send(inbox, { ...follow, id: `${remote.id}#f3` })).status).toBe(202);
  });

  it('refuses a malformed host and explains when federation is off', async () => {
    const bad = await runCli(['federation', 'block', '--host', 'not a host'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('is not a host name');
    const off = await runCli(['federation', 'hosts'], {
      ...env,
      SERVICE_FEDERATION_ENABLED: 'false',
    });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('federation is off');
  });

  it('makes a local user follow a remote actor', async () => {
    const { user } = await kiln.make.user();
    const followed = await runCli(
      ['federation', 'follow', '--username', user.handle, '--actor', remote.id],
      env,
    );
    expect(followed.code).toBe(0);
    expect(
      await eventually(async () =>
        remote.received.some(
          (r) => r.activity.type === 'Follow' && r.activity.actor === `${kiln.url}/${user.handle}`,
        ),
      ),
    ).toBe(true);
  });
});
