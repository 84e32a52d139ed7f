import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigDocs } from './docs.ts';
import { ConfigError, loadConfig, unknownEnvironmentWarnings } from './load.ts';
import { envName } from './schema.ts';

function tomlFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-config-'));
  const file = join(dir, 'service.toml');
  writeFileSync(file, text);
  return file;
}

const missing = '/nonexistent/kiln-config-test.toml';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ env: {}, file: undefined });
    expect(config.http.host).toBe('127.0.0.1');
    expect(config.http.port).toBe(3000);
    expect(config.forgeApiVersion).toBe('1.13.0');
    expect(config.protect.anonymousBudget).toBe(30);
    expect(config.protect.userBudget).toBe(120);
    expect(config.protect.windowMs).toBe(60_000);
    expect(config.ci.taskTimeoutMs).toBe(3_600_000);
    expect(config.ci.zombieReclaimIntervalMs).toBe(60_000);
    expect(config.adminHandles).toEqual([]);
    expect(config.databaseUrl).toBeUndefined();
  });

  it('maps every key to its environment name', () => {
    expect(envName('service.ci.zombie-reclaim-interval')).toBe(
      'SERVICE_CI_ZOMBIE_RECLAIM_INTERVAL',
    );
    expect(envName('service.forge-api.version')).toBe('SERVICE_FORGE_API_VERSION');
    const config = loadConfig({
      env: {
        SERVICE_HTTP_PORT: '0',
        SERVICE_ADMIN_HANDLES: 'alice, bob',
        SERVICE_CI_TASK_TIMEOUT: '90s',
        SERVICE_PROTECT_ENABLED: 'false',
        SERVICE_BASE_URL: 'https://git.example.com/',
      },
    });
    expect(config.http.port).toBe(0);
    expect(config.adminHandles).toEqual(['alice', 'bob']);
    expect(config.ci.taskTimeoutMs).toBe(90_000);
    expect(config.protect.enabled).toBe(false);
    expect(config.baseUrl?.href).toBe('https://git.example.com/');
  });

  it('reads the TOML file and lets the environment win', () => {
    const file = tomlFile(
      '[service.http]\nport = 8080\nhost = "0.0.0.0"\n[service.protect]\nwindow = "5m"\n',
    );
    const config = loadConfig({ file, env: { SERVICE_HTTP_PORT: '9090' } });
    expect(config.http.port).toBe(9090);
    expect(config.http.host).toBe('0.0.0.0');
    expect(config.protect.windowMs).toBe(300_000);
  });

  it.each([
    ['SERVICE_HTTP_PORT', 'abc', 'service.http.port'],
    ['SERVICE_HTTP_PORT', '70000', 'service.http.port'],
    ['SERVICE_CI_TASK_TIMEOUT', '10', 'service.ci.task-timeout'],
    ['SERVICE_PROTECT_ENABLED', 'maybe', 'service.protect.enabled'],
    ['SERVICE_BASE_URL', 'ftp://x', 'service.base-url'],
    ['SERVICE_DATABASE_URL', 'mysql://x', 'service.database-url'],
    ['SERVICE_FORGE_API_VERSION', 'v1', 'service.forge-api.version'],
    ['SERVICE_PROTECT_CAPTCHA_PROVIDER', 'recaptcha3', 'service.protect.captcha-provider'],
    ['SERVICE_TRUST_PROXY', '10.0.0.1,evil host', 'service.trust-proxy'],
  ])('stops on %s=%s with one line naming %s', (name, value, key) => {
    let error: unknown;
    try {
      loadConfig({ env: { [name]: value }, file: tomlFile('') });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(key);
    expect(message).toContain(name);
    expect(message).toContain('must be');
    expect(message).not.toContain('\n');
  });

  it('keeps sign-up closed where the earlier key closed it', () => {
    const load = (env: Record<string, string>) =>
      loadConfig({ env, file: tomlFile('') }).signup.enabled;
    expect(load({})).toBe(true);
    expect(load({ SERVICE_AUTH_OPEN_REGISTRATION: 'false' })).toBe(false);
    expect(load({ SERVICE_SIGNUP_ENABLED: 'false' })).toBe(false);
    expect(load({ SERVICE_SIGNUP_ENABLED: 'true', SERVICE_AUTH_OPEN_REGISTRATION: 'false' })).toBe(
      false,
    );
  });

  it('never prints a secret in an error', () => {
    expect(() => loadConfig({ env: { SERVICE_SECRET_KEY: 'short' } })).toThrow(/\(hidden\)/);
  });

  it('refuses unknown keys and broken TOML in the file', () => {
    expect(() => loadConfig({ file: tomlFile('[service.htp]\nport = 1\n'), env: {} })).toThrow(
      /unknown key service\.htp\.port/,
    );
    expect(() => loadConfig({ file: tomlFile('port = = 1'), env: {} })).toThrow(/not valid TOML/);
    expect(() => loadConfig({ file: missing, env: {} })).toThrow(/does not exist/);
  });
});

describe('docs/configuration.md', () => {
  it('matches the schema (regenerate with npm run docs:config)', () => {
    const onDisk = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(onDisk).toBe(renderConfigDocs());
  });
});

describe('unknownEnvironmentWarnings', () => {
  it('names each unknown SERVICE_ variable once, with the closest key', () => {
    const warnings = unknownEnvironmentWarnings({
      SERVICE_HTTP_PROT: '8080',
      SERVICE_HTTP_PORT: '3000',
      SERVICE_DATADIR: '/srv',
      SERVICES_ELSEWHERE: 'x',
      PATH: '/usr/bin',
    });
    expect(warnings).toEqual([
      'config: unknown environment variable SERVICE_DATADIR is ignored; did you mean SERVICE_DATA_DIR (service.data-dir)?',
      'config: unknown environment variable SERVICE_HTTP_PROT is ignored; did you mean SERVICE_HTTP_PORT (service.http.port)?',
    ]);
  });

  it('is silent when every variable is a key', () => {
    expect(unknownEnvironmentWarnings({ SERVICE_HTTP_PORT: '1', HOME: '/root' })).toEqual([]);
  });
});
