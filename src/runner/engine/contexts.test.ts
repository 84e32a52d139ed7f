/** Where the runner tells a job's tools to send the task token. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseEnv, type TaskDirs } from './contexts.ts';

const DIRS: TaskDirs = {
  root: '/w/t',
  workspace: '/w/t/workspace',
  home: '/w/t/home',
  temp: '/w/t/temp',
  toolCache: '/w/tool-cache',
  eventPath: '/w/t/temp/event.json',
  fileCommands: '/w/t/temp/files',
  actions: '/w/actions',
};
const HOST = {
  workRoot: '/w',
  runnerName: 'r',
  instance: 'https://kiln.example',
  hostEnv: {},
  killGraceMs: 1,
};

function env(context: Record<string, unknown>) {
  const task = { id: '1', workflowPayload: '', context, secrets: {}, vars: {}, needs: {} };
  return baseEnv(task, HOST, DIRS);
}

describe('API addresses a job is given', () => {
  it('are never empty, so no client falls back to api.github.com with the task token', () => {
    const maybe = fc.option(fc.constantFrom('', 'https://git.example/api/v1', 'http://x:3000'), {
      nil: undefined,
    });
    const server = fc.option(fc.constantFrom('', 'https://git.example', 'https://git.example/'), {
      nil: undefined,
    });
    fc.assert(
      fc.property(maybe, maybe, server, (api, graphql, serverUrl) => {
        const context: Record<string, unknown> = { token: 't' };
        if (api !== undefined) context.api_url = api;
        if (graphql !== undefined) context.graphql_url = graphql;
        if (serverUrl !== undefined) context.server_url = serverUrl;
        const vars = env(context);
        const origin = (serverUrl || HOST.instance).replace(/\/+$/, '');
        expect(vars.GITHUB_API_URL).toBe(api || `${origin}/api/v1`);
        expect(vars.GITHUB_GRAPHQL_URL).toBe(graphql || `${origin}/api/graphql`);
        for (const url of [vars.GITHUB_API_URL, vars.GITHUB_GRAPHQL_URL])
          expect(url).not.toMatch(/github\.com/);
      }),
    );
  });

  it("keeps the server's own addresses", () => {
    const vars = env({ api_url: 'https://git.example/api/v1', server_url: 'https://git.example' });
    expect(vars.GITHUB_API_URL).toBe('https://git.example/api/v1');
    expect(vars.GITEA_API_URL).toBe('https://git.example/api/v1');
  });
});
