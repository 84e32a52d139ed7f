import { sshGitAccess } from '../domain/keys/ssh-git-access.ts';
import { LFS_SSH_GRANT_SECONDS, type LfsSshGrants } from '../domain/lfs/lfs-ssh-grant.ts';
import type { GitAccessRepos } from '../domain/repos/git-access.ts';
import type { SshLog } from './git-commands.ts';
import { type LfsTransferServices, lfsTransferCommand } from './lfs-transfer-session.ts';
import { lfsCommandTarget, type SshCommand, type SshCommandContext } from './ssh-commands.ts';

/**
 * What the LFS commands use: the access rules of git over SSH, the grants of
 * `git-lfs-authenticate`, and the objects and locks `git-lfs-transfer` serves.
 */
export type LfsSshServices = LfsTransferServices & {
  readonly repos: GitAccessRepos;
  readonly lfsSshGrants: Pick<LfsSshGrants, 'mint'>;
};

/**
 * The LFS commands of the SSH server's table: `git-lfs-transfer` (lfs-transfer-session.ts),
 * which git-lfs tries first, unless `settings.sshTransfer` is off, and `git-lfs-authenticate`,
 * its fallback (for older clients, and for every client when the transfer is not served: git-lfs
 * then moves objects over HTTP).
 *
 * The `git-lfs-authenticate <repo> <upload|download>` command:
 * git-lfs runs it to learn where the repository's LFS API is and with what to call it. The
 * answer is the API's address on `baseUrl` and a grant for this key, this repository and this
 * operation, good for LFS_SSH_GRANT_SECONDS. The key gets exactly what it gets for git: a
 * repository it may not see reads as missing, a download key is refused an upload.
 */
export function lfsSshCommands(
  services: LfsSshServices,
  baseUrl: string | undefined,
  log: SshLog,
  settings: { readonly sshTransfer: boolean } = { sshTransfer: true },
): Array<[string, SshCommand]> {
  const authenticating: [string, SshCommand] = [
    'git-lfs-authenticate',
    (context) => authenticate(services, baseUrl, context),
  ];
  if (!settings.sshTransfer) return [authenticating];
  return [['git-lfs-transfer', lfsTransferCommand(services, log)], authenticating];
}

async function authenticate(
  services: LfsSshServices,
  baseUrl: string | undefined,
  context: SshCommandContext,
) {
  const target = lfsCommandTarget('git-lfs-authenticate', context.args);
  if ('status' in target) return target;
  const { operation } = target;
  const write = operation === 'upload';
  const { principal } = context;
  const { repo } = await sshGitAccess(services.repos, principal, target.owner, target.name, write);
  if (baseUrl === undefined) {
    return {
      status: 1,
      message: 'Git LFS over SSH needs the base URL of the server (service.base-url)',
    };
  }
  const token = services.lfsSshGrants.mint({
    keyId: principal.key.id,
    fingerprint: principal.key.fingerprint,
    repoId: repo.id,
    operation,
  });
  const href = `${baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}.git/info/lfs`;
  const answer = {
    href,
    header: { Authorization: `Bearer ${token}` },
    expires_in: LFS_SSH_GRANT_SECONDS,
  };
  context.output.write(`${JSON.stringify(answer)}\n`);
  return { status: 0 };
}
