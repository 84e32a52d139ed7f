import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { loadOcticons } from './icons.ts';
import { AssetParams } from './page-params.ts';

type Asset = { body: Buffer; type: string };

const CSS = 'text/css; charset=utf-8';

/** The flame Octicon as a standalone, coloured SVG file. */
function favicon(): Buffer {
  const svg = loadOcticons().flame?.toSVG({ width: 32 }) ?? '<svg></svg>';
  return Buffer.from(
    svg.replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" fill="#bc4c00" '),
  );
}

type Source = { read: () => Buffer; type: string };

/**
 * Where each asset comes from. The files are found at start, so a broken installation still fails
 * to start, but read on their first request (Primer's CSS alone is a megabyte).
 */
function sources(): Map<string, Source> {
  const require = createRequire(import.meta.url);
  const file = (path: string) => () => readFileSync(path);
  const own = (name: string) => file(fileURLToPath(new URL(`../assets/${name}`, import.meta.url)));
  const dependency = (path: string) => file(require.resolve(path));
  return new Map([
    ['primer.css', { read: dependency('@primer/css/dist/primer.css'), type: CSS }],
    ['highlight.css', { read: dependency('highlight.js/styles/github.css'), type: CSS }],
    ['kiln.css', { read: own('kiln.css'), type: CSS }],
    ['kiln.js', { read: own('kiln.js'), type: 'text/javascript; charset=utf-8' }],
    ['avatar.svg', { read: own('avatar.svg'), type: 'image/svg+xml' }],
    ['favicon.svg', { read: favicon, type: 'image/svg+xml' }],
  ]);
}

/**
 * Static assets, served from memory. Each is read on its first request rather than at start, so
 * a server that answers only the API and git holds none of them.
 */
export function registerAssetRoutes(parent: FastifyInstance): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const known = sources();
  const assets = new Map<string, Asset>();
  const options = { logLevel: 'warn', schema: { params: AssetParams } } as const;
  server.get('/assets/:name', options, async (request, reply) => {
    const { name } = request.params;
    const source = known.get(name);
    if (!source) return reply.callNotFound();
    let asset = assets.get(name);
    if (!asset) {
      asset = { body: source.read(), type: source.type };
      assets.set(name, asset);
    }
    return reply.header('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
}
