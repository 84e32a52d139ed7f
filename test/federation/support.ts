import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  exportSpki,
  generateCryptoKeyPair,
  getDocumentLoader,
  signRequest,
  verifyRequest,
} from '@fedify/fedify';
import { freePort } from '../support/free-port.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

export { freePort };

export const AP = 'application/activity+json';

/** Kiln with federation on, at a base URL of its own on 127.0.0.1. */
export async function startFederatedKiln(env: Record<string, string> = {}): Promise<TestServer> {
  const port = await freePort();
  return startTestServer({
    SERVICE_HTTP_PORT: String(port),
    SERVICE_BASE_URL: `http://127.0.0.1:${port}`,
    SERVICE_SECRET_KEY: 'federation test secret key',
    SERVICE_FEDERATION_ALLOW_PRIVATE_ADDRESSES: 'true',
    ...env,
  });
}

/**
 * Two federated Kilns: A, and B with a user owning a public repository `tool`, whose actor id is
 * `repoActor`.
 */
export async function startTwoKilns(): Promise<{
  a: TestServer;
  b: TestServer;
  authorHandle: string;
  repoActor: string;
}> {
  const [a, b] = await Promise.all([startFederatedKiln(), startFederatedKiln()]);
  const author = await b.make.userWithToken();
  const created = await fetch(`${b.url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { authorization: `token ${author.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'tool' }),
  });
  if (created.status !== 201) throw new Error(`could not create the repository: ${created.status}`);
  const authorHandle = author.user.handle;
  return { a, b, authorHandle, repoActor: `${b.url}/repos/${authorHandle}/tool` };
}

/** JSON-LD contexts the test side knows; ForgeFed's terms are not needed to read keys. */
const base = getDocumentLoader({ allowPrivateAddress: true });
export const testDocumentLoader = async (url: string) =>
  url.startsWith('https://forgefed.org/ns')
    ? { contextUrl: null, documentUrl: url, document: { '@context': {} } }
    : base(url);

type KeyCache = NonNullable<NonNullable<Parameters<typeof verifyRequest>[1]>['keyCache']>;
type CachedKey = NonNullable<Awaited<ReturnType<KeyCache['get']>>>;

export type Received = { readonly activity: Record<string, unknown>; readonly verifiedBy: string };

/**
 * A minimal fediverse server built on Fedify's own library, not on Kiln: one `Person` actor with
 * an RSA key, an inbox that keeps every activity whose HTTP signature Fedify verifies, and a way
 * to send signed activities. This is what a Mastodon-like server does with Kiln.
 */
export class FediverseActor {
  /** Refuse draft-cavage signatures, as a server speaking only RFC 9421 would. */
  rfc9421Only = false;
  /** Serve the actor to signed GETs only, as Mastodon's secure mode does. */
  requireSignedGet = false;
  /** The owners of the keys that signed GETs of the actor, in order ('' for unsigned ones). */
  readonly actorFetchedBy: string[] = [];
  /**
   * Remember the keys of actors once verified, as Mastodon does: a `Delete` an actor sends of
   * itself is then verified with the key it had, though the actor no longer answers.
   */
  rememberKeys = false;
  readonly #keyCache = new Map<string, CachedKey>();
  /** Which signature kinds arrived at the inbox, in order. */
  readonly signatureKinds: ('rfc9421' | 'draft-cavage')[] = [];
  readonly received: Received[] = [];
  readonly refused: number[] = [];
  #server: Server | undefined;
  #keys: CryptoKeyPair | undefined;
  #pem = '';
  #origin = '';

  get id(): string {
    return `${this.#origin}/actor`;
  }

  get inbox(): string {
    return `${this.#origin}/inbox`;
  }

  get keys(): CryptoKeyPair {
    if (!this.#keys) throw new Error('not started');
    return this.#keys;
  }

  async start(): Promise<void> {
    await this.rotateKey();
    this.#server = createServer((req, res) => {
      void this.#handle(req).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': AP });
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.#origin = `http://127.0.0.1:${port}`;
  }

  /** A new key pair, published at once (as a server rotating its keys does). */
  async rotateKey(): Promise<void> {
    this.#keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    this.#pem = await exportSpki(this.#keys.publicKey);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }

  async #handle(req: IncomingMessage): Promise<{ status: number; body: string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === 'GET' && req.url === '/actor') {
      const signer = await this.#verify(req, undefined);
      this.actorFetchedBy.push(signer ?? '');
      if (this.requireSignedGet && !signer) return { status: 401, body: '' };
      return {
        status: 200,
        body: JSON.stringify({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: this.id,
          type: 'Person',
          preferredUsername: 'tester',
          inbox: this.inbox,
          outbox: `${this.#origin}/outbox`,
          publicKey: { id: `${this.id}#main-key`, owner: this.id, publicKeyPem: this.#pem },
        }),
      };
    }
    if (req.method === 'POST' && req.url === '/inbox') {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const kind = headers.has('signature-input') ? 'rfc9421' : 'draft-cavage';
      this.signatureKinds.push(kind);
      if (this.rfc9421Only && kind !== 'rfc9421') {
        this.refused.push(401);
        return { status: 401, body: '' };
      }
      const signer = await this.#verify(req, body);
      if (signer === undefined) {
        this.refused.push(401);
        return { status: 401, body: '' };
      }
      this.received.push({ activity: JSON.parse(body.toString('utf8')), verifiedBy: signer });
      return { status: 202, body: '' };
    }
    return { status: 404, body: '' };
  }

  /** The owner of the key that signed `req`, or undefined when it is not validly signed. */
  async #verify(req: IncomingMessage, body: Buffer | undefined): Promise<string | undefined> {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    if (!headers.has('signature') && !headers.has('signature-input')) return undefined;
    const request = new Request(`${this.#origin}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body: new Uint8Array(body) }),
    });
    const cache = this.#keyCache;
    const keyCache: KeyCache = {
      get: async (keyId) => cache.get(keyId.href),
      set: async (keyId, found) => {
        if (found) cache.set(keyId.href, found);
      },
    };
    const key = await verifyRequest(request, {
      documentLoader: testDocumentLoader,
      contextLoader: testDocumentLoader,
      ...(this.rememberKeys ? { keyCache } : {}),
    }).catch(() => null);
    return key ? (key.ownerId?.href ?? '') : undefined;
  }

  /** A GET of `url` asking for ActivityPub, signed by this actor (or by `key` under its name). */
  async signedGet(url: string, key: CryptoKey = this.keys.privateKey): Promise<Response> {
    const request = new Request(url, { headers: { accept: AP } });
    return fetch(
      await signRequest(request, key, new URL(`${this.id}#main-key`), {
        spec: 'draft-cavage-http-signatures-12',
      }),
    );
  }

  /** Posts `activity` to `inbox`, signed by this actor (draft-cavage, as Mastodon does). */
  async send(inbox: string, activity: object): Promise<Response> {
    return fetch(await this.signed(inbox, activity));
  }

  async signed(
    inbox: string,
    activity: object,
    spec: 'draft-cavage-http-signatures-12' | 'rfc9421' = 'draft-cavage-http-signatures-12',
  ) {
    const request = new Request(inbox, {
      method: 'POST',
      headers: { 'content-type': AP, accept: AP },
      body: JSON.stringify(activity),
    });
    return signRequest(request, this.keys.privateKey, new URL(`${this.id}#main-key`), { spec });
  }
}

/** A REST call with a token: the answer's status and JSON body (null when it has none). */
export async function apiCall(
  server: TestServer,
  token: string,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    json: (await response.json().catch(() => null)) as Record<string, unknown>,
  };
}
