import { type ClientRequest, type IncomingMessage, request } from 'node:http';

/** Authorization header values for each form SPEC.md accepts. */
export const auth = {
  token: (token: string) => ({ authorization: `token ${token}` }),
  bearer: (token: string) => ({ authorization: `Bearer ${token}` }),
  basicPassword: (token: string, username = 'anyone') => ({
    authorization: `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`,
  }),
  basicUsername: (token: string) => ({
    authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}`,
  }),
};

/** A tiny cookie jar for driving pages over real HTTP the way a browser would. */
export class Browser {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly cookies = new Map<string, string>();

  /** `headers` go with every request (a `user-agent`, say). */
  constructor(base: string, headers: Record<string, string> = {}) {
    this.#base = base;
    this.#headers = headers;
  }

  #store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  #cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string): Promise<Response> {
    const response = await fetch(this.#base + path, {
      headers: { ...this.#headers, cookie: this.#cookieHeader() },
      redirect: 'manual',
    });
    this.#store(response);
    return response;
  }

  /** Posts a form (a list is a repeated field); `_csrf` is filled from the cookie unless given. */
  async post(
    path: string,
    form: Record<string, string | readonly string[]>,
    options: { csrf?: string | false } = {},
  ) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
    }
    const csrf = options.csrf === undefined ? this.cookies.get('kiln_csrf') : options.csrf;
    if (csrf !== false && csrf !== undefined && !body.has('_csrf')) body.set('_csrf', csrf);
    const response = await fetch(this.#base + path, {
      method: 'POST',
      headers: {
        ...this.#headers,
        cookie: this.#cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
      redirect: 'manual',
    });
    this.#store(response);
    return response;
  }
}

/**
 * A response body as loosely-typed JSON: tests read arbitrary wire shapes and assert on them,
 * so the type only has to get out of the way.
 */
// biome-ignore lint/suspicious/noExplicitAny: wire JSON under test, asserted field by field
export type Json = any;

export async function json(response: Response): Promise<Json> {
  return response.json();
}

export type ApiCall = { method?: string; token?: string | undefined; body?: unknown };

/** One `/api/v1` request with an optional token and JSON body; the answer's text and JSON. */
export async function apiCall(base: string, path: string, call: ApiCall = {}) {
  const response = await fetch(`${base}/api/v1${path}`, {
    method: call.method ?? 'GET',
    headers: {
      ...(call.token ? auth.token(call.token) : {}),
      ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? (JSON.parse(text) as Json) : undefined,
  };
}

/**
 * Starts a GET of `url` and stops reading once the head has arrived: the server is left with an
 * answer nobody reads (what holds a slot of a bounded download). `req.destroy()` lets go.
 */
export function stalledDownload(
  url: string,
): Promise<{ response: IncomingMessage; req: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (response) => {
      response.pause();
      resolve({ response, req });
    });
    req.on('error', reject);
    req.end();
  });
}
