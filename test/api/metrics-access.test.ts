/**
 * `/metrics` is for the operator: loopback clients (unless turned off) and holders of
 * `service.metrics.token`. Everyone else, including clients a trusted reverse proxy forwards
 * from elsewhere and requests an untrusted proxy on this machine relays, gets 403.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORWARDING_HEADERS } from '../../src/http/plugins/metrics-access.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const TOKEN = 'scrape-token-0123456789';

async function scrape(kiln: TestServer, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${kiln.url}/metrics`, { headers });
  const body = await response.text();
  if (response.status === 200) expect(body).toContain('kiln_http_request_duration_seconds');
  else expect(body).not.toContain('kiln_http');
  return response.status;
}

describe('behind a trusted proxy, with a token', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer({
      SERVICE_TRUST_PROXY: '127.0.0.1',
      SERVICE_METRICS_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('serves a loopback client', async () => {
    expect(await scrape(kiln)).toBe(200);
  });

  it('refuses a client the proxy forwards from elsewhere', async () => {
    expect(await scrape(kiln, { 'x-forwarded-for': '203.0.113.9' })).toBe(403);
    expect(
      await scrape(kiln, { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer wrong-token' }),
    ).toBe(403);
    expect(await scrape(kiln, { 'x-forwarded-for': '203.0.113.9', authorization: TOKEN })).toBe(
      403,
    );
  });

  it('serves anyone with the token', async () => {
    expect(
      await scrape(kiln, { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${TOKEN}` }),
    ).toBe(200);
  });
});

describe('with loopback turned off', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer({
      SERVICE_METRICS_ALLOW_LOOPBACK: 'false',
      SERVICE_METRICS_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('needs the token even on loopback', async () => {
    expect(await scrape(kiln)).toBe(403);
    expect(await scrape(kiln, { authorization: `Bearer ${TOKEN}` })).toBe(200);
  });
});

describe('with no trusted proxy', () => {
  let kiln: TestServer;
  beforeAll(async () => {
    kiln = await startTestServer({ SERVICE_METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await kiln?.close();
  });

  it('refuses a loopback request relayed by a proxy, whatever forwarding headers it carries', async () => {
    expect(await scrape(kiln, { 'x-forwarded-for': '203.0.113.9' })).toBe(403);
    expect(await scrape(kiln, { forwarded: 'for=203.0.113.9' })).toBe(403);
    expect(await scrape(kiln, { 'x-real-ip': '203.0.113.9' })).toBe(403);
    const value = fc.constantFrom('203.0.113.9', '127.0.0.1', 'for="[2001:db8::1]"', 'unknown');
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...FORWARDING_HEADERS), value, { minKeys: 1 }),
        async (headers) => {
          expect(await scrape(kiln, headers)).toBe(403);
          expect(await scrape(kiln, { ...headers, authorization: `Bearer ${TOKEN}` })).toBe(200);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('serves a loopback client that sends no forwarding header', async () => {
    expect(await scrape(kiln, { 'x-request-id': 'abc', accept: 'text/plain' })).toBe(200);
  });
});
