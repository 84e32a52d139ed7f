/**
 * Starting and stopping `kiln mcp`: without a valid personal access token it refuses with one
 * line on stderr, nothing on stdout and a non-zero exit; the token may come from a file; a client
 * that writes its requests and closes stdin still gets every answer, and the server then exits 0.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { MAIN, runCli } from '../support/cli.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { callTool, connectMcp, mcpEnv } from './support.ts';

let kiln: TestServer;
let alice: User;
let token: string;

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: alice, token } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await kiln?.close();
});

describe('refusing to start', () => {
  it.each([
    ['no token', {}, 'kiln: no access token: set KILN_TOKEN or pass --token-file PATH\n'],
    [
      'an unknown token',
      { KILN_TOKEN: 'f'.repeat(40) },
      'kiln: the access token is invalid or revoked\n',
    ],
    [
      'a blank token',
      { KILN_TOKEN: '  ' },
      'kiln: no access token: set KILN_TOKEN or pass --token-file PATH\n',
    ],
  ])('exits non-zero with one line on stderr given %s', async (_what, env, line) => {
    const result = await runCli(['mcp'], { ...mcpEnv(kiln), ...env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(line);
    expect(result.stdout).toBe('');
  });

  it('refuses a revoked token', async () => {
    const { tokens } = kiln.app.services;
    const revoked = await kiln.make.token(alice, 'revoked');
    const record = (await tokens.list(alice)).find((entry) => entry.name === 'revoked');
    if (!record) throw new Error('token not listed');
    await tokens.revoke(alice, record.id);
    const result = await runCli(['mcp'], { ...mcpEnv(kiln), KILN_TOKEN: revoked });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('kiln: the access token is invalid or revoked\n');
  });

  it('refuses an unreadable token file', async () => {
    const missing = join(kiln.dataDir, 'missing-token');
    const result = await runCli(['mcp', '--token-file', missing], mcpEnv(kiln));
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toEqual([
      `kiln: cannot read the token file: ENOENT: no such file or directory, open '${missing}'`,
      '',
    ]);
  });
});

describe('serving', () => {
  it('reads the token from --token-file, which wins over KILN_TOKEN', async () => {
    const file = join(kiln.dataDir, 'token');
    writeFileSync(file, `${token}\n`);
    const session = await connectMcp(kiln, { args: ['--token-file', file], token: 'bogus' });
    try {
      const me = await callTool(session, 'whoami');
      expect(me.structured.login).toBe(alice.handle);
    } finally {
      await session.close();
    }
  });

  it('stops answering once its token is revoked', async () => {
    const revocable = await kiln.make.token(alice, 'short-lived');
    const session = await connectMcp(kiln, { token: revocable });
    try {
      expect((await callTool(session, 'whoami')).isError).toBe(false);
      const { tokens } = kiln.app.services;
      const record = (await tokens.list(alice)).find((entry) => entry.name === 'short-lived');
      if (!record) throw new Error('token not listed');
      await tokens.revoke(alice, record.id);
      expect(await callTool(session, 'whoami')).toMatchObject({
        isError: true,
        text: 'the access token is invalid or revoked',
      });
    } finally {
      await session.close();
    }
  });

  it('answers requests piped in before stdin closes, then exits 0', async () => {
    const child = spawn(process.execPath, [MAIN, 'mcp'], {
      env: { ...mcpEnv(kiln), KILN_TOKEN: token },
      cwd: kiln.dataDir,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.resume();
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'list_repositories', arguments: {} },
      },
    ];
    child.stdin.end(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id).sort()).toEqual([1, 2, 3]);
    const whoami = lines.find((line) => line.id === 2);
    expect(whoami.result.structuredContent.login).toBe(alice.handle);
  });
});
