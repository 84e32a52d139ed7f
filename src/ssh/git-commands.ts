import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { NotFound } from '../domain/errors.ts';
import { sshGitAccess } from '../domain/keys/ssh-git-access.ts';
import type { GitAccessRepos } from '../domain/repos/git-access.ts';
import {
  type IncomingPush,
  type PushReceptionServices,
  receivePush,
} from '../domain/repos/push-reception.ts';
import { uploadArchive, uploadPack } from '../git/transport.ts';
import { repoPathOf, type SshCommand, type SshCommandContext } from './ssh-commands.ts';

/** What git over SSH uses: the access rules and the push use case every git transport shares. */
export type GitSshServices = PushReceptionServices & { readonly repos: GitAccessRepos };

/** The lines shown after a push of a branch (Gitea's, with the web's addresses), if any. */
export type PushHints = IncomingPush['hints'];

/** Where failures after the answer began are told (the server's log). */
export type SshLog = {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
};

const GIT_SERVICES = ['git-upload-pack', 'git-receive-pack', 'git-upload-archive'] as const;
type GitSshService = (typeof GIT_SERVICES)[number];

/**
 * The git commands of the SSH server, for its command table: each resolves the repository the
 * same way smart HTTP does (`sshGitAccess`, which a deploy key narrows to its repository), then
 * streams git between the channel and the repository. A path that names no repository, or
 * one the key may not see, reads as a missing repository, whatever exists.
 */
export function gitCommands(
  services: GitSshServices,
  log: SshLog,
  hints?: PushHints,
): Array<[string, SshCommand]> {
  return GIT_SERVICES.map((service) => [
    service,
    (context) => runGit({ services, log, hints }, service, context),
  ]);
}

async function runGit(
  { services, log, hints }: { services: GitSshServices; log: SshLog; hints: PushHints },
  service: GitSshService,
  context: SshCommandContext,
) {
  const [path, ...rest] = context.args;
  if (path === undefined || rest.length > 0) {
    return { status: 1, message: `usage: ${service} 'OWNER/NAME.git'` };
  }
  const target = repoPathOf(path);
  if (!target) throw new NotFound('repository does not exist');
  const write = service === 'git-receive-pack';
  const { repo, pusher } = await sshGitAccess(
    services.repos,
    context.principal,
    target.owner,
    target.name,
    write,
  );
  const handle = services.repos.handle(repo);
  const transport = {
    stateless: false,
    gitProtocol: context.env.GIT_PROTOCOL,
    signal: context.signal,
  };
  let output: Readable;
  if (service === 'git-upload-pack') output = await uploadPack(handle, context.input, transport);
  else if (service === 'git-upload-archive') {
    output = await uploadArchive(handle, context.input, transport);
  } else {
    // sshGitAccess gives a push only to someone who may make it.
    if (!pusher) throw new Error('a push without a pusher');
    output = await receivePush(services, {
      repo,
      pusher,
      viaDeployKey: context.principal.kind === 'deploy',
      input: context.input,
      transport,
      hints,
      log: {
        warn: (error, message) => log.warn({ err: error }, message),
        error: (error, message) => log.error({ err: error }, message),
      },
    });
  }
  await relay(output, context.output);
  return { status: 0 };
}

/** Copies `from` into `to`, waiting when `to` is full; fails when `from` does. */
async function relay(from: Readable, to: Writable): Promise<void> {
  for await (const chunk of from) {
    if (!to.write(chunk)) await once(to, 'drain');
  }
}
