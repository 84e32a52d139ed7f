import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { Config } from '../config/config.ts';
import { keyCheck, writeKeyCheck } from '../domain/secret-key/key-check.ts';
import { ensureSecretKeyFile, readSecretKeyFile, SECRET_KEY_FILE } from '../lib/secret-key-file.ts';
import { warn } from './command.ts';

/**
 * The configuration with the data directory's own key when `service.secret-key` is unset and
 * Kiln made one there before: every command then opens what `serve` sealed. A set key wins.
 */
export function withStoredSecretKey(config: Config): Config {
  if (config.secretKey !== undefined) return config;
  const stored = readSecretKeyFile(config.dataDir);
  return stored === undefined ? config : Object.freeze({ ...config, secretKey: stored });
}

/**
 * For `serve`, `migrate` and `restore` (after the data directory exists): the configuration with
 * a secret key in every case, so CI secrets, webhook secrets, federation keys and signed URLs work
 * without settings. Unset, the key is made once in the data directory (0600) and said so in one
 * line, since replicas must then share that file. A key that does not open what the directory's
 * secrets were sealed under is said so too (`kiln doctor` reports it as well).
 */
export function withSecretKey(config: Config): Config {
  let secretKey = config.secretKey;
  if (secretKey === undefined) {
    const made = ensureSecretKeyFile(config.dataDir);
    secretKey = made.key;
    if (made.created) {
      warn(
        `made a secret key in ${join(resolve(config.dataDir), SECRET_KEY_FILE)} (service.secret-key is unset); replicas must share it: copy the file or set SERVICE_SECRET_KEY`,
      );
    }
  }
  writeKeyCheck(config.dataDir, secretKey);
  if (keyCheck(config.dataDir, secretKey) === 'mismatch') {
    warn(
      'the secret key in use does not open the secrets stored in this data directory (sealed under another key); run `kiln doctor`',
    );
  }
  return secretKey === config.secretKey ? config : Object.freeze({ ...config, secretKey });
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/** A free TCP port on `host`, for a base URL that must be known before the server listens. */
function freePort(host: string): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/**
 * For `serve` (and the federation commands) with `service.base-url` unset and a loopback
 * listening address: the configuration with federation's address derived from it, for this
 * machine only, and the one line that says so (printed once the server listens, so a start that
 * fails says only why). Port 0 is resolved to a free port first, because actor ids are made
 * before the server listens. Only federation takes it: links elsewhere keep following each
 * request, since a proxy in front may give them another host. Any other address (0.0.0.0 among
 * them) derives nothing: only an operator knows the name others reach the server by, and a
 * loopback address lets federation reach loopback peers, which must stay out of reach of anyone
 * off this machine.
 */
export async function withDerivedBaseUrl(
  config: Config,
): Promise<{ config: Config; note?: string }> {
  if (config.baseUrl !== undefined) return { config };
  const { host } = config.http;
  if (!LOOPBACK.test(host)) return { config };
  const port = config.http.port === 0 ? await freePort(host) : config.http.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const loopbackBaseUrl = new URL(`http://${shown}:${port}`);
  return {
    config: Object.freeze({
      ...config,
      http: Object.freeze({ ...config.http, port }),
      federation: Object.freeze({ ...config.federation, loopbackBaseUrl }),
    }),
    note: `service.base-url is unset: federation uses ${loopbackBaseUrl.origin}, for this machine only; set SERVICE_BASE_URL to the address others reach Kiln by`,
  };
}
