import { Invalid } from '../errors.ts';
import type { HostPolicy } from './host-policy.ts';
import { idOf } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';

const HANDLE = /^(?:acct:)?@?([^@\s/]+)@([^@\s/]+)$/;

/**
 * Turns what a person pastes — `@name@host`, `name@host`, `acct:name@host` or an actor's URL —
 * into the id of a remote actor. Handles go through WebFinger over HTTPS, as the protocol
 * requires; only when private addresses are allowed (tests on 127.0.0.1, where nothing speaks
 * TLS) is plain HTTP tried after it. Anything that fails is `Invalid`, with the reason, so a
 * form can show it.
 */
export class ActorResolver {
  readonly #documents: RemoteDocuments;
  readonly #hosts: HostPolicy;
  readonly #schemes: readonly string[];

  constructor(deps: { documents: RemoteDocuments; hosts: HostPolicy; allowHttp: boolean }) {
    this.#documents = deps.documents;
    this.#hosts = deps.hosts;
    this.#schemes = deps.allowHttp ? ['https', 'http'] : ['https'];
  }

  /** The actor id `target` names. */
  async resolve(target: string): Promise<string> {
    const text = target.trim();
    if (text.length === 0 || text.length > 2000) {
      throw new Invalid('name a remote actor by URL or as @user@host');
    }
    const acct = HANDLE.exec(text);
    return acct ? this.#webfinger(acct[1] ?? '', acct[2] ?? '') : this.#actorAt(text);
  }

  async #webfinger(name: string, host: string): Promise<string> {
    const resource = `acct:${name}@${host}`;
    if (!this.#hosts.permits(host))
      throw new Invalid('this server does not federate with that one');
    let lastError: unknown;
    for (const scheme of this.#schemes) {
      const url = `${scheme}://${host}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
      if (!URL.canParse(url)) break;
      let jrd: { links?: { rel?: string; type?: string; href?: string }[] };
      try {
        jrd = (await this.#documents.fetchJson(url)) as typeof jrd;
      } catch (error) {
        lastError = error;
        continue;
      }
      const self = jrd.links?.find(
        (link) => link.rel === 'self' && /activity\+json|ld\+json/.test(link.type ?? ''),
      );
      if (!self?.href) throw new Invalid(`${resource} has no ActivityPub actor`);
      return this.#actorAt(self.href);
    }
    throw new Invalid(`${resource} could not be looked up`, { cause: lastError });
  }

  async #actorAt(url: string): Promise<string> {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new Invalid('name a remote actor by URL or as @user@host');
    }
    if (!this.#hosts.permitsUrl(url)) {
      throw new Invalid('this server does not federate with that one');
    }
    let document: unknown;
    try {
      ({ document } = await this.#documents.loader(url));
    } catch (error) {
      throw new Invalid(`${url} could not be fetched`, { cause: error });
    }
    const id = idOf(document);
    if (!id || !URL.canParse(id) || new URL(id).host !== new URL(url).host) {
      throw new Invalid(`${url} is not an actor`);
    }
    return id;
  }
}
