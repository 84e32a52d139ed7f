import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AssetParams } from './page-params.ts';

type Asset = { body: Buffer; type: string };

type Octicon = { toSVG(options?: { width?: number }): string };

/** The flame Octicon as a standalone, coloured SVG file. */
function favicon(require: NodeJS.Require): Buffer {
  const octicons = require('@primer/octicons') as Record<string, Octicon>;
  const svg = octicons.flame?.toSVG({ width: 32 }) ?? '<svg></svg>';
  return Buffer.from(
    svg.replace('<svg ', '<svg xmlns="http://www.w3.org/2000/svg" fill="#bc4c00" '),
  );
}

function load(): Map<string, Asset> {
  const require = createRequire(import.meta.url);
  const own = (name: string) => readFileSync(new URL(`../assets/${name}`, import.meta.url));
  return new Map([
    [
      'primer.css',
      {
        body: readFileSync(require.resolve('@primer/css/dist/primer.css')),
        type: 'text/css; charset=utf-8',
      },
    ],
    [
      'highlight.css',
      {
        body: readFileSync(require.resolve('highlight.js/styles/github.css')),
        type: 'text/css; charset=utf-8',
      },
    ],
    ['kiln.css', { body: own('kiln.css'), type: 'text/css; charset=utf-8' }],
    ['kiln.js', { body: own('kiln.js'), type: 'text/javascript; charset=utf-8' }],
    ['avatar.svg', { body: own('avatar.svg'), type: 'image/svg+xml' }],
    ['favicon.svg', { body: favicon(require), type: 'image/svg+xml' }],
  ]);
}

/** Static assets, read once at start and served from memory. */
export function registerAssetRoutes(parent: FastifyInstance): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const assets = load();
  const options = { logLevel: 'warn', schema: { params: AssetParams } } as const;
  server.get('/assets/:name', options, async (request, reply) => {
    const { name } = request.params;
    const asset = assets.get(name);
    if (!asset) return reply.callNotFound();
    return reply.header('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
}
