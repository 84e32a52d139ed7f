/**
 * `/metrics` shows each declared cache: the entries it holds and the lookups it answered from
 * memory or not, labelled by its name and freshness rule.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

let kiln: TestServer;
let token: string;
useWorld({ people: ['owner'], repos: [{ owner: 'owner', name: 'r', autoInit: true }] }, (world) => {
  kiln = world.kiln;
  token = world.people.owner.token;
  handle = world.people.owner.user.handle;
});
let handle: string;

/** The value of `series{labels}` in a scrape, or undefined when absent. */
function value(metrics: string, series: string, labels: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('cache metrics', () => {
  it("report each cache's entries, hits and misses", async () => {
    const scrape = async () => (await fetch(`${kiln.url}/metrics`)).text();
    const labels = 'cache="git_ref_listings",freshness="change-stamp"';
    const before = await scrape();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${kiln.url}/api/v1/repos/${handle}/r/branches`, {
        headers: { authorization: `token ${token}` },
      });
      expect(response.status).toBe(200);
    }
    const after = await scrape();
    expect(value(after, 'kiln_cache_entries', labels)).toBeGreaterThanOrEqual(1);
    const lookups = (text: string) =>
      (value(text, 'kiln_cache_hits_total', labels) ?? 0) +
      (value(text, 'kiln_cache_misses_total', labels) ?? 0);
    expect(lookups(after)).toBeGreaterThanOrEqual(lookups(before) + 3);
    expect(
      value(after, 'kiln_cache_entries', 'cache="git_object_answers",freshness="immutable"'),
    ).toBeTypeOf('number');
  });
});
