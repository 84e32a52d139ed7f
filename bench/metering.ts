/**
 * What metering costs a metered page, and whether its memory stays bounded under a flood of
 * distinct clients.
 *
 * 1. Throughput: two identical servers in this process, metering on (budgets too high to ever
 *    refuse) and off, answer a metered page through `server.inject`, C concurrent loops for a
 *    fixed number of requests per run: `GET /search` (layout only, the cheapest metered page, so metering weighs
 *    most) and `GET /search?q=bench` (two database queries). Runs alternate between the two
 *    servers (order swapped every round); both the ratio of the medians and the median of the
 *    back-to-back pairs' ratios must reach 0.97, by wall clock and by this process's CPU time,
 *    unless the pairs scatter too widely to resolve 3 % (a busy machine). The hook is also timed
 *    on its own and set against the page's CPU cost, which no outside load can blur.
 * 2. Flood: N requests from N distinct client addresses (`remoteAddress`) spread over at least two
 *    metering windows go through the real hook. The counter map must stay within 50,000 plus the
 *    keys of one window (the current one or the one that just ended), and RSS after a
 *    memory-reducing collection, once the flood's windows are over, must come back within 20 MB
 *    of where it started (measured the same way after a warm-up of as many requests from one
 *    address). RSS after plain full collections, V8's pool of freed pages still resident, is
 *    reported beside it.
 *
 *   node --expose-gc bench/metering.ts [--rounds 25] [--requests 1500] [--concurrency 16]
 *                                      [--clients 200000] [--window 15s]
 *
 * Stops by itself; everything lives in a temporary directory that is removed at the end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type App, createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/load.ts';
import { ANONYMOUS } from '../src/http/auth/viewer.ts';
import { meteringHook, protectionOf } from '../src/http/protect/metering.plugin.ts';
import { buildServer } from '../src/http/server.ts';
import { Pages } from '../src/http/web/page.ts';
import { seedBenchPerson } from './_seed.ts';
import { median } from './_stats.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '25' },
    requests: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '16' },
    clients: { type: 'string', default: '200000' },
    window: { type: 'string', default: '15s' },
  },
});
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const CLIENTS = Number(args.clients);
/** The cheapest metered page (no query: layout only), where metering weighs most, and a search. */
const PAGES = ['/search', '/search?q=bench'] as const;
const FLOOD_PAGE = '/search';
const MAX_KEYS = 50_000;

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-metering-'));
let serial = 0;

async function start(env: Record<string, string>): Promise<{ app: App; server: FastifyInstance }> {
  const dir = join(root, String(serial++));
  const configFile = `${dir}.toml`;
  writeFileSync(configFile, '');
  const app = await createApp(
    loadConfig({
      file: configFile,
      env: { SERVICE_DATA_DIR: dir, SERVICE_LOG_LEVEL: 'silent', ...env },
    }),
  );
  const server = await buildServer(app);
  await server.ready();
  await seed(app);
  return { app, server };
}

/** A few people and repositories for the search to find. */
async function seed(app: App): Promise<void> {
  const { user: owner } = await seedBenchPerson(app.services, {
    handle: 'bench-owner',
    fullName: 'Bench Owner',
  });
  for (let i = 0; i < 5; i++) {
    await app.services.repos.create(owner, { name: `bench-repo-${i}`, private: i % 2 === 1 });
  }
}

/**
 * Lets the event loop run its check phase: a tight `inject` loop resolves through promises and
 * ticks only, so without this every answer's `setImmediate` write callback (and with it the whole
 * response) would stay queued until the loop ends.
 */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type Rate = { wall: number; cpu: number };

/**
 * One run of `REQUESTS` requests from `CONCURRENCY` loops, started on a freshly collected heap:
 * requests per wall-clock second, and per second of CPU time this process used (server and client
 * alike live here), which other processes on a busy machine disturb far less.
 */
async function run(server: FastifyInstance, url: string): Promise<Rate> {
  let issued = 0;
  collect?.();
  await yieldToLoop();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const loop = async () => {
    while (issued < REQUESTS) {
      issued += 1;
      const response = await server.inject({ method: 'GET', url });
      if (response.statusCode !== 200) throw new Error(`unexpected ${response.statusCode}`);
      if (issued % 32 === 0) await yieldToLoop();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  await yieldToLoop();
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: REQUESTS / wallSeconds, cpu: REQUESTS / ((cpu.user + cpu.system) / 1e6) };
}

function quartiles(values: number[]): [number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return [at(0.25), at(0.75)];
}

type Collect = (options?: { type?: 'major'; execution?: 'sync'; flavor?: 'last-resort' }) => void;
const collect = (globalThis as { gc?: Collect }).gc;

/** Resident memory after two full collections (`--expose-gc`). */
function rssMb(): number {
  if (collect) {
    collect();
    collect();
  }
  return process.memoryUsage().rss / 2 ** 20;
}

/**
 * Resident memory after a memory-reducing collection (call it after `rssMb`, whose collections
 * it builds on). V8 keeps the pages a collection frees in a pool for its next allocations, still
 * resident, and a plain full collection leaves them there: after a flood that pool is tens of
 * megabytes, its size a matter of when the collections fell. The collection V8 runs when it
 * tries to shrink (the `last-resort` flavour) returns the pool, so what is left is what the
 * process holds.
 */
function rssReducedMb(): number {
  collect?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return process.memoryUsage().rss / 2 ** 20;
}

/**
 * Nanoseconds one pass through the metering hook takes on its own (anonymous caller, 256
 * addresses, always within budget): the whole of what metering adds to a metered request, free of
 * the noise that whole-request runs pick up on a busy machine.
 */
function hookNanoseconds(kiln: { app: App; server: FastifyInstance }): number {
  const protection = protectionOf(kiln.server);
  if (!protection) throw new Error('no protection state on the server');
  const hook = meteringHook(protection, kiln.app.config.protect, new Pages(kiln.app));
  const requests = Array.from(
    { length: 256 },
    (_, i) =>
      ({
        routeOptions: { config: { metered: true } },
        method: 'GET',
        url: '/search',
        viewer: ANONYMOUS,
        cookies: {},
        headers: {},
        socket: { remoteAddress: `192.0.2.${i}` },
      }) as unknown as FastifyRequest,
  );
  const reply = {} as FastifyReply;
  let passed = 0;
  const done = () => {
    passed += 1;
  };
  const calls = 1_000_000;
  for (let i = 0; i < calls / 10; i++) hook(requests[i & 255]!, reply, done);
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) hook(requests[i & 255]!, reply, done);
  const used = process.cpuUsage(started);
  if (passed !== calls + calls / 10) throw new Error('the hook refused a request');
  return ((used.user + used.system) * 1000) / calls;
}

type Figure = { name: string; target: string; measured: number; unit: string; pass: boolean };

async function throughput(figures: Figure[]): Promise<boolean> {
  const high = {
    SERVICE_PROTECT_ANONYMOUS_BUDGET: '1000000',
    SERVICE_PROTECT_USER_BUDGET: '1000000',
  };
  const on = await start({ ...high, SERVICE_PROTECT_ENABLED: 'true' });
  const off = await start({ ...high, SERVICE_PROTECT_ENABLED: 'false' });
  let allOk = true;
  try {
    for (const url of PAGES) {
      // Warm-up: JIT, statement caches, first page renders.
      await run(on.server, url);
      await run(off.server, url);
      const rates = { on: [] as Rate[], off: [] as Rate[] };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
        for (const which of order) {
          rates[which].push(await run(which === 'on' ? on.server : off.server, url));
        }
      }
      console.log(
        `throughput ${url} (${ROUNDS} alternating pairs of runs of ${REQUESTS} requests, concurrency ${CONCURRENCY})`,
      );
      const pageNs = 1e9 / median(rates.off.map((rate) => rate.cpu));
      const hookNs = median([1, 2, 3].map(() => hookNanoseconds(on)));
      const hookRatio = pageNs / (pageNs + hookNs);
      allOk &&= hookRatio >= 0.97;
      figures.push({
        name: `metered page ${url}, metering on ÷ off, by CPU per request (the hook timed alone against the page)`,
        target: '≥ 0.97',
        measured: Number(hookRatio.toFixed(3)),
        unit: 'ratio',
        pass: hookRatio >= 0.97,
      });
      console.log(
        `  hook alone: ${hookNs.toFixed(0)} ns CPU per request = ${((100 * hookNs) / pageNs).toFixed(2)} % of the page's ${(pageNs / 1000).toFixed(0)} µs CPU → ratio ≥ ${hookRatio.toFixed(3)} (target ≥ 0.97): ${hookRatio >= 0.97 ? 'ok' : 'MISSED'}`,
      );
      for (const measure of ['wall', 'cpu'] as const) {
        const onRates = rates.on.map((rate) => rate[measure]);
        const offRates = rates.off.map((rate) => rate[measure]);
        // Each pair ran back to back, so its ratio is untouched by slow drifts in machine load.
        const pairRatios = onRates.map((rate, i) => rate / offRates[i]!);
        const pairRatio = median(pairRatios);
        const medianRatio = median(onRates) / median(offRates);
        const [q1, q3] = quartiles(pairRatios);
        // When the pairs disagree by more than the effect to be resolved, no verdict is possible.
        const noisy = q3 - q1 > 0.06;
        const ok = pairRatio >= 0.97 && medianRatio >= 0.97;
        if (!noisy) allOk &&= ok;
        const unit = measure === 'wall' ? 'req/s' : 'req per CPU-s';
        const verdict = noisy ? 'too noisy to resolve 3 %' : ok ? 'ok' : 'MISSED';
        console.log(
          `  ${measure === 'wall' ? 'wall clock' : 'CPU time  '}: on ${median(onRates).toFixed(0)} ${unit}, off ${median(offRates).toFixed(0)}; ratio of medians ${medianRatio.toFixed(3)}, pair ratios median ${pairRatio.toFixed(3)} (quartiles ${q1.toFixed(2)}–${q3.toFixed(2)}): ${verdict}`,
        );
      }
    }
    return allOk;
  } finally {
    await on.server.close();
    await on.app.close();
    await off.server.close();
    await off.app.close();
  }
}

async function flood(figures: Figure[]): Promise<boolean> {
  const kiln = await start({
    SERVICE_PROTECT_ANONYMOUS_BUDGET: '1000000',
    SERVICE_PROTECT_WINDOW: args.window,
  });
  try {
    const protection = protectionOf(kiln.server);
    if (!protection) throw new Error('no protection state on the server');
    const { meter } = protection;
    const windowMs = meter.windowMs;
    // Warm-up: as many requests as the flood, from one address. A burst of requests raises the
    // process's memory to a plateau the allocator keeps (measured: about 100 MB after 100,000
    // or 300,000 requests alike, with metering on or off), so the baseline is taken on that
    // plateau and what the flood adds on top is what its distinct clients cost.
    for (let i = 0; i < CLIENTS; i++) {
      await kiln.server.inject({ method: 'GET', url: FLOOD_PAGE });
      if (i % 32 === 0) await yieldToLoop();
    }
    await yieldToLoop();
    const rssPooledStart = rssMb();
    const rssStart = rssReducedMb();
    const heapStart = process.memoryUsage().heapUsed / 2 ** 20;

    const perWindow = new Map<number, number>();
    let worstExcess = Number.NEGATIVE_INFINITY;
    let largest = 0;
    const started = performance.now();
    for (let i = 0; i < CLIENTS; i++) {
      const response = await kiln.server.inject({
        method: 'GET',
        url: FLOOD_PAGE,
        remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      });
      if (response.statusCode !== 200) throw new Error(`unexpected ${response.statusCode}`);
      const window = Math.floor(Date.now() / windowMs);
      const inWindow = (perWindow.get(window) ?? 0) + 1;
      perWindow.set(window, inWindow);
      // The window just ended counts too: an answer read after a boundary may have been counted
      // before it, and the map keeps the elapsed window's keys until the next new key prunes.
      const oneWindow = Math.max(inWindow, perWindow.get(window - 1) ?? 0);
      largest = Math.max(largest, meter.size);
      worstExcess = Math.max(worstExcess, meter.size - oneWindow);
      if (i % 32 === 0) await yieldToLoop();
    }
    await yieldToLoop();
    const seconds = (performance.now() - started) / 1000;
    const now = Math.floor(Date.now() / windowMs);
    const current = Math.max(perWindow.get(now) ?? 0, perWindow.get(now - 1) ?? 0);
    const keysAfterFlood = meter.size;
    const busiest = Math.max(...perWindow.values());
    const bounded = keysAfterFlood <= MAX_KEYS + current && worstExcess <= MAX_KEYS + 1;
    // Memory comes back once the flood's windows are over: the next client prunes their keys.
    await new Promise((resolve) => setTimeout(resolve, 3 * windowMs - (Date.now() % windowMs)));
    await kiln.server.inject({ method: 'GET', url: FLOOD_PAGE, remoteAddress: '192.0.2.254' });
    await yieldToLoop();
    const rssPooledEnd = rssMb();
    const rssEnd = rssReducedMb();
    const heapEnd = process.memoryUsage().heapUsed / 2 ** 20;
    const memoryOk = rssEnd - rssStart <= 20;
    figures.push(
      {
        name: `metering map under ${CLIENTS.toLocaleString('en')} distinct clients, keys beyond one window's (bound ${MAX_KEYS + 1})`,
        target: `≤ ${MAX_KEYS + 1}`,
        measured: worstExcess,
        unit: 'keys',
        pass: bounded,
      },
      {
        name: 'RSS after the flood’s windows are over, growth from before it (memory-reducing collection at both ends)',
        target: '≤ 20 MB',
        measured: Number((rssEnd - rssStart).toFixed(1)),
        unit: 'MB',
        pass: memoryOk,
      },
    );
    console.log(
      `flood: ${CLIENTS} distinct clients in ${seconds.toFixed(1)} s over ${perWindow.size} windows of ${windowMs / 1000} s`,
    );
    console.log(
      `  keys after the flood ${keysAfterFlood} (largest of the current and last window ${current}), after its windows ${meter.size}, largest ${largest} (busiest window ${busiest} keys), worst (keys − that window's keys) ${worstExcess} (limit ${MAX_KEYS + 1}): ${bounded ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `  JS heap in use ${heapStart.toFixed(1)} MB → ${heapEnd.toFixed(1)} MB; RSS ${rssStart.toFixed(1)} MB → ${rssEnd.toFixed(1)} MB once the flood's windows are over (Δ ${(rssEnd - rssStart).toFixed(1)} MB, limit 20${collect ? '' : ', no --expose-gc'}): ${memoryOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `  with V8's page pool still resident (full collections only): RSS ${rssPooledStart.toFixed(1)} MB → ${rssPooledEnd.toFixed(1)} MB (Δ ${(rssPooledEnd - rssPooledStart).toFixed(1)} MB)`,
    );
    return bounded && memoryOk;
  } finally {
    await kiln.server.close();
    await kiln.app.close();
  }
}

try {
  const figures: Figure[] = [];
  const fast = await throughput(figures);
  const small = await flood(figures);
  console.log(JSON.stringify({ figures }));
  process.exitCode = fast && small ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
