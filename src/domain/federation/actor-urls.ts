/**
 * Where each local actor lives. Actor ids are the URLs people already use (`/{user}`,
 * `/repos/{owner}/{name}`), so a link shared in the fediverse opens the page in a browser and the
 * actor for a server. They depend on handles and names only, never on display names. The
 * endpoints an actor needs besides its id (inbox, outbox, followers) live under `/federation/`,
 * where no page can collide with them.
 */
export class ActorUrls {
  /** The external base URL without a trailing slash. */
  readonly base: string;

  constructor(baseUrl: URL) {
    this.base = baseUrl.href.replace(/\/+$/, '');
  }

  get host(): string {
    return new URL(this.base).host;
  }

  instance(): string {
    return `${this.base}/federation/actor`;
  }

  sharedInbox(): string {
    return `${this.base}/federation/inbox`;
  }

  user(handle: string): string {
    return `${this.base}/${encodeURIComponent(handle)}`;
  }

  userEndpoint(handle: string, endpoint: ActorEndpoint): string {
    return `${this.base}/federation/users/${encodeURIComponent(handle)}/${endpoint}`;
  }

  repo(owner: string, name: string): string {
    return `${this.base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
  }

  repoEndpoint(owner: string, name: string, endpoint: ActorEndpoint | 'forks'): string {
    return `${this.base}/federation/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/${endpoint}`;
  }

  activity(id: string): string {
    return `${this.base}/federation/activities/${id}`;
  }

  /**
   * Which local actor an id names, or undefined when it is not one of ours.
   *
   * @example urls.parse('https://git.example.com/repos/ada/kiln') // { kind: 'repo', owner: 'ada', name: 'kiln' }
   */
  parse(id: string): LocalActorRef | undefined {
    if (id === this.instance()) return { kind: 'instance' };
    if (!id.startsWith(`${this.base}/`)) return undefined;
    const parts = id.slice(this.base.length + 1).split('/');
    try {
      const decoded = parts.map((part) => decodeURIComponent(part));
      if (decoded.length === 1 && decoded[0]) return { kind: 'user', handle: decoded[0] };
      if (decoded.length === 3 && decoded[0] === 'repos' && decoded[1] && decoded[2]) {
        return { kind: 'repo', owner: decoded[1], name: decoded[2] };
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
}

export type ActorEndpoint = 'inbox' | 'outbox' | 'followers';

/** A local actor as an id names it, before it is looked up. */
export type LocalActorRef =
  | { readonly kind: 'instance' }
  | { readonly kind: 'user'; readonly handle: string }
  | { readonly kind: 'repo'; readonly owner: string; readonly name: string };
