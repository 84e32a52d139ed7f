import { deriveSecretKey, openSecret, sealSecret } from '../ci/secret-box.ts';
import type { ActorKeysStore } from './actor-keys.store.ts';
import { fedify } from './fedify.ts';

/** A local actor's two key pairs: RSA for draft-cavage peers, Ed25519 for newer ones. */
export type ActorKeyPairs = {
  readonly rsa: CryptoKeyPair;
  readonly ed25519: CryptoKeyPair;
};

/** An actor's public keys in the forms its document carries. */
export type PublishedKeys = { readonly rsaPem: string; readonly ed25519Multibase: string };

/**
 * Key pairs of local actors, made on first use and kept in `federation_keys`. Private halves are
 * sealed (AES-256-GCM) under a key derived from `SERVICE_SECRET_KEY`, bound to the actor they
 * belong to, so the table alone never yields a usable private key. Keys are cached in memory once
 * opened; two replicas making the first pair at once keep whichever row was inserted first.
 */
export class ActorKeys {
  readonly #store: ActorKeysStore;
  readonly #sealKey: Buffer;
  readonly #opened = new Map<string, Promise<ActorKeyPairs>>();
  readonly #published = new Map<string, Promise<PublishedKeys>>();

  constructor(store: ActorKeysStore, secretKey: string) {
    this.#store = store;
    this.#sealKey = deriveSecretKey(`federation keys\u0000${secretKey}`);
  }

  /** The key pairs of `actor` (`instance`, `user:<id>`, `repo:<id>`), made if it has none. */
  get(actor: string): Promise<ActorKeyPairs> {
    let pending = this.#opened.get(actor);
    if (!pending) {
      pending = this.#load(actor);
      this.#opened.set(actor, pending);
      pending.catch(() => this.#opened.delete(actor));
    }
    return pending;
  }

  /**
   * The public halves as actor documents show them (PEM, multibase), exported once per actor:
   * exporting on every request cost more than the rest of an actor request together.
   */
  publicKeys(actor: string): Promise<PublishedKeys> {
    let pending = this.#published.get(actor);
    if (!pending) {
      pending = this.get(actor).then(async (keys) => {
        const { exportMultibaseKey, exportSpki } = await fedify();
        return {
          rsaPem: await exportSpki(keys.rsa.publicKey),
          ed25519Multibase: await exportMultibaseKey(keys.ed25519.publicKey),
        };
      });
      this.#published.set(actor, pending);
      pending.catch(() => this.#published.delete(actor));
    }
    return pending;
  }

  async #load(actor: string): Promise<ActorKeyPairs> {
    const existing = await this.#find(actor);
    if (existing) return existing;
    const { exportJwk, generateCryptoKeyPair } = await fedify();
    const [rsa, ed25519] = await Promise.all([
      // 2048 bits rather than Fedify's default 4096: what draft-cavage peers (Mastodon, Gitea,
      // Forgejo) all read, and a quarter of the signing cost.
      crypto.subtle.generateKey(
        {
          name: 'RSASSA-PKCS1-v1_5',
          modulusLength: 2048,
          publicExponent: new Uint8Array([1, 0, 1]),
          hash: 'SHA-256',
        },
        true,
        ['sign', 'verify'],
      ),
      generateCryptoKeyPair('Ed25519'),
    ]);
    const seal = async (key: CryptoKey, kind: string) =>
      sealSecret(this.#sealKey, JSON.stringify(await exportJwk(key)), `${actor}/${kind}`);
    await this.#store.insertIfAbsent({
      actor,
      rsaPublic: JSON.stringify(await exportJwk(rsa.publicKey)),
      rsaPrivateSealed: await seal(rsa.privateKey, 'rsa'),
      ed25519Public: JSON.stringify(await exportJwk(ed25519.publicKey)),
      ed25519PrivateSealed: await seal(ed25519.privateKey, 'ed25519'),
    });
    const stored = await this.#find(actor);
    if (!stored) throw new Error(`federation keys of ${actor} were not stored`);
    return stored;
  }

  async #find(actor: string): Promise<ActorKeyPairs | undefined> {
    const stored = await this.#store.find(actor);
    if (!stored) return undefined;
    const { importJwk } = await fedify();
    const open = (sealed: string, kind: string) =>
      importJwk(JSON.parse(openSecret(this.#sealKey, sealed, `${actor}/${kind}`)), 'private');
    const pub = (text: string) => importJwk(JSON.parse(text), 'public');
    const [rsaPublic, rsaPrivate, edPublic, edPrivate] = await Promise.all([
      pub(stored.rsaPublic),
      open(stored.rsaPrivateSealed, 'rsa'),
      pub(stored.ed25519Public),
      open(stored.ed25519PrivateSealed, 'ed25519'),
    ]);
    return {
      rsa: { publicKey: rsaPublic, privateKey: rsaPrivate },
      ed25519: { publicKey: edPublic, privateKey: edPrivate },
    };
  }
}
