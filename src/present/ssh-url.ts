import type { Config } from '../config/config.ts';

/** What an SSH clone URL is made from: the `service.ssh.*` settings. */
export type SshCloneSettings = Config['ssh'];

/**
 * The SSH clone URL of `owner/name`: `git@HOST:owner/name.git` on port 22, else
 * `ssh://git@HOST:PORT/owner/name.git`. The host is `service.ssh.public-host`, else the base
 * URL's; the port `service.ssh.public-port`, else the listening one. Empty when SSH is off or
 * the port is not known before start (`0`).
 */
export function sshCloneUrl(
  settings: SshCloneSettings,
  baseUrl: string | null,
  owner: string,
  name: string,
): string {
  if (!settings.enabled) return '';
  const host = settings.publicHost ?? (baseUrl ? new URL(baseUrl).hostname : undefined);
  const port = settings.publicPort || settings.port;
  if (!host || port === 0) return '';
  return port === 22
    ? `git@${host}:${owner}/${name}.git`
    : `ssh://git@${host}:${port}/${owner}/${name}.git`;
}
