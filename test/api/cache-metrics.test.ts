/**
 * `/metrics` shows each declared cache: the entries it holds and the lookups it answered from
 * memory or not, labelled by its name and freshness rule.
 */
import { readFileSync } from 'node:fs';
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

  it('report every cache the process declares', async () => {
    const metrics = await (await fetch(`${kiln.url}/metrics`)).text();
    const declared = kiln.app.caches.readings();
    expect(declared.length).toBeGreaterThan(0);
    const missing = declared
      .map(({ name, freshness }) => `cache="${name}",freshness="${freshness}"`)
      .filter((labels) =>
        ['kiln_cache_entries', 'kiln_cache_hits_total', 'kiln_cache_misses_total'].some(
          (series) => value(metrics, series, labels) === undefined,
        ),
      );
    expect(missing).toEqual([]);
  });

  it('list every declared cache in the architecture notes', () => {
    const notes = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const table = notes.slice(notes.indexOf('## Caches'));
    const listed = new Set(
      table
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1])),
    );
    const unlisted = kiln.app.caches
      .readings()
      .map(({ name }) => name)
      .filter((name) => !listed.has(name));
    expect(unlisted).toEqual([]);
  });
});
