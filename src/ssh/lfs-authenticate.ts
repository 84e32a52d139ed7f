import { NotFound } from '../domain/errors.ts';
import { sshGitAccess } from '../domain/keys/ssh-git-access.ts';
import { LFS_SSH_GRANT_SECONDS, type LfsSshGrants } from '../domain/lfs/lfs-ssh-grant.ts';
import type { GitAccessRepos } from '../domain/repos/git-access.ts';
import type { SshCommand, SshCommandContext } from './ssh-commands.ts';

/** What `git-lfs-authenticate` uses: the access rules of git over SSH, and the grants. */
export type LfsSshServices = {
  readonly repos: GitAccessRepos;
  readonly lfsSshGrants: Pick<LfsSshGrants, 'mint'>;
};

/** `owner/name` or `owner/name.git`, with or without a leading slash. */
const REPO_PATH = /^\/?([^/]+)\/([^/]+?)\/?$/;

/**
 * The `git-lfs-authenticate <repo> <upload|download>` command, for the SSH server's table:
 * git-lfs runs it to learn where the repository's LFS API is and with what to call it. The
 * answer is the API's address on `baseUrl` and a grant for this key, this repository and this
 * operation, good for LFS_SSH_GRANT_SECONDS. The key gets exactly what it gets for git: a
 * repository it may not see reads as missing, a download key is refused an upload.
 */
export function lfsSshCommands(
  services: LfsSshServices,
  baseUrl: string | undefined,
): Array<[string, SshCommand]> {
  return [['git-lfs-authenticate', (context) => authenticate(services, baseUrl, context)]];
}

async function authenticate(
  services: LfsSshServices,
  baseUrl: string | undefined,
  context: SshCommandContext,
) {
  const [path, operation, ...rest] = context.args;
  if (
    path === undefined ||
    (operation !== 'upload' && operation !== 'download') ||
    rest.length > 0
  ) {
    return { status: 1, message: "usage: git-lfs-authenticate 'OWNER/NAME.git' upload|download" };
  }
  const match = REPO_PATH.exec(path);
  if (!match?.[1] || !match[2]) throw new NotFound('repository does not exist');
  const write = operation === 'upload';
  const { principal } = context;
  const { repo } = await sshGitAccess(services.repos, principal, match[1], match[2], write);
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
