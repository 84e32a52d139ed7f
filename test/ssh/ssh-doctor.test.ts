/**
 * `kiln doctor` reads every stored SSH key again as the API reads a new one, and names each that
 * no longer parses (or whose fingerprint no longer matches) with what to do.
 */
import { expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { runCli, useCliInstance } from '../support/cli.ts';
import { makeKeyPair, removeKeyPairs } from './ssh-support.ts';

let env: Record<string, string>;
let configFile: string;
useCliInstance('kiln-ssh-doctor-', (instance) => {
  ({ env, configFile } = instance);
});

it('reports keys that no longer read as keys, and only those', async () => {
  const app = await createApp(loadConfig({ file: configFile, env }));
  try {
    const user = await app.services.users.createUser({
      handle: 'keyholder',
      email: 'k@x.test',
      password: 'pw-123456',
    });
    const good = await app.services.sshKeys.addUserKey(user, {
      title: 'good',
      key: makeKeyPair().publicKey,
    });
    const spoiled = await app.services.sshKeys.addUserKey(user, {
      title: 'spoiled',
      key: makeKeyPair().publicKey,
    });
    // A row changed behind Kiln's back, as a hand-edited restore might leave it.
    await app.database.db
      .updateTable('ssh_keys')
      .set({ public_key: 'ssh-ed25519 AAAAbroken' })
      .where('id', '=', spoiled.id)
      .execute();
    expect(good.fingerprint).not.toBe(spoiled.fingerprint);
  } finally {
    await app.close();
    removeKeyPairs();
  }
  const result = await runCli(['doctor'], env);
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('(spoiled): the key no longer reads as one Kiln accepts');
  expect(result.stdout).toContain('fix: remove the key and have its owner add a new one');
  expect(result.stdout).not.toContain('(good)');
});
