/** The environment a daemon started by npm hands its jobs: the host's, not npm's. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostEnvironment } from './host-env.ts';

const HOST_PATH = '/usr/local/bin:/usr/bin:/bin:/home/me/.local/bin';

describe('hostEnvironment', () => {
  it("takes out what npx put in front of PATH and npm's variables", () => {
    const env = {
      PATH: `/srv/kiln/node_modules/.bin:/srv/node_modules/.bin:/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:${HOST_PATH}`,
      HOME: '/home/me',
      npm_command: 'exec',
      npm_config_cache: '/home/me/.npm',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
      INIT_CWD: '/srv/kiln',
      NODE: '/srv/kiln/node_modules/node/bin/node',
    };
    expect(hostEnvironment(env)).toEqual({ PATH: HOST_PATH, HOME: '/home/me' });
  });

  it('leaves an environment npm did not make as it is', () => {
    const env = { PATH: `/opt/tools/node_modules/.bin:${HOST_PATH}`, HOME: '/home/me' };
    expect(hostEnvironment(env)).toBe(env);
  });

  it('keeps every host directory, in order, whatever npm put in front', () => {
    const dir = fc.stringMatching(/^\/[a-z0-9._-]{1,8}(\/[a-z0-9._-]{1,8}){0,3}$/);
    const hostDirs = fc.array(
      dir.filter((d) => !d.endsWith('/node_modules/.bin') && !d.endsWith('/node-gyp-bin')),
      { maxLength: 6 },
    );
    const npmDirs = fc.array(
      dir.map((d) => `${d}/node_modules/.bin`),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(npmDirs, hostDirs, (added, host) => {
        const env = { PATH: [...added, ...host].join(':'), npm_lifecycle_event: 'kiln' };
        expect(hostEnvironment(env).PATH).toBe(host.join(':'));
      }),
    );
  });
});
