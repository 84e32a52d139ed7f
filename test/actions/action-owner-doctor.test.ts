/**
 * An instance where accounts took action-owner names before they were reserved: `kiln doctor`
 * names each one administrators do not control (a person, an organisation with a non-admin
 * owner) with what to do, the server logs one warning line at start-up, and both fall silent
 * once an administrator has taken the organisation over. The operator's `kiln org create`
 * makes an action owner whoever its first owner is.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { buildServer } from '../../src/http/server.ts';
import { runCli, useCliInstance } from '../support/cli.ts';

let env: Record<string, string>;
let configFile: string;

useCliInstance(
  'kiln-action-owners-',
  (instance) => {
    ({ env, configFile } = instance);
  },
  { SERVICE_CI_ACTION_OWNERS: 'actions,Tools', SERVICE_ADMIN_HANDLES: 'root' },
);

async function withInstance<T>(work: (app: App) => Promise<T>): Promise<T> {
  const app = await createApp(
    loadConfig({ file: configFile, env: { ...env, SERVICE_LOG_LEVEL: 'warn' } }),
  );
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

/** The start-up warnings about action owners, one object per line. */
async function startUpWarnings(app: App): Promise<Array<{ handles: string[] }>> {
  const logStream = new PassThrough();
  let text = '';
  logStream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const server = await buildServer(app, { logStream });
  await server.close();
  return text
    .split('\n')
    .filter((line) => line.includes('service.ci.action-owners'))
    .map((line) => JSON.parse(line));
}

/** `kiln user create` as the operator runs it. */
const createUser = (name: string) =>
  runCli(
    `user create --username ${name} --email ${name}@x.test --password pw-123456`.split(' '),
    env,
  );

describe('action owners taken before they were reserved', () => {
  it('are reported by the doctor and at start-up until administrators control them', async () => {
    for (const name of ['root', 'mallory', 'TOOLS']) expect((await createUser(name)).code).toBe(0);
    const made = await runCli(['org', 'create', '--name', 'actions', '--owner', 'mallory'], env);
    expect(made.code, made.stderr).toBe(0);

    const doctor = await runCli(['doctor'], env);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      'problem: actions: is an action owner (service.ci.action-owners) whose organisation is owned by mallory',
    );
    expect(doctor.stdout).toContain('remove mallory from its owners');
    expect(doctor.stdout).toContain('problem: TOOLS: is an action owner');
    expect(doctor.stdout).toContain('kiln user disable');

    await withInstance(async (app) => {
      const warnings = await startUpWarnings(app);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.handles.sort()).toEqual(['TOOLS', 'actions']);
      // The organisation's non-admin owner may not write there; an administrator takes it over.
      const { orgs, users } = app.services;
      const root = await users.getUser('root');
      const mallory = await users.getUser('mallory');
      await expect(orgs.addMemberByHandle(mallory, 'actions', 'root', 'owner')).rejects.toThrow(
        /only owners/,
      );
      await orgs.addMemberByHandle(root, 'actions', 'root', 'owner');
      await orgs.removeMember(root, 'actions', 'mallory');
      expect((await startUpWarnings(app))[0]?.handles).toEqual(['TOOLS']);
    });

    const after = await runCli(['doctor'], env);
    expect(after.stdout).not.toContain('problem: actions:');
    expect(after.stdout).toContain('problem: TOOLS:');
  });
});
