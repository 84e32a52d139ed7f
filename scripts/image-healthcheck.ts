/**
 * Adds Docker's `Healthcheck` to the config of an image in an OCI layout (scripts/build-image.sh).
 *
 * The OCI image config has no field for it, but Docker and Podman read Docker's from the config
 * of an image they load, and the OCI spec lets a config carry fields it does not define. Rewriting
 * the config changes its digest, so the manifest that names it and the index that names the
 * manifest are rewritten too; the old blobs are left for `umoci gc`.
 *
 * Usage: node scripts/image-healthcheck.ts LAYOUT TAG
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Descriptor = {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
};

const [layout, tag] = process.argv.slice(2);
if (!layout || !tag) {
  process.stderr.write('usage: node scripts/image-healthcheck.ts LAYOUT TAG\n');
  process.exit(2);
}

/** The check: GET /healthz on the port Kiln listens on, with the Node the image already has. */
const PROBE =
  "fetch('http://127.0.0.1:'+(process.env.SERVICE_HTTP_PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))";
const SECOND = 1_000_000_000;
const HEALTHCHECK = {
  Test: ['CMD', '/opt/kiln/node_modules/node/bin/node', '-e', PROBE],
  Interval: 30 * SECOND,
  Timeout: 5 * SECOND,
  StartPeriod: 30 * SECOND,
  Retries: 3,
};

function blobPath(digest: string): string {
  return join(layout!, 'blobs', ...digest.split(':'));
}

function readJson<T>(digest: string): T {
  return JSON.parse(readFileSync(blobPath(digest), 'utf8')) as T;
}

/** Writes a JSON blob and returns its descriptor. */
function writeJson(mediaType: string, value: unknown): Descriptor {
  const bytes = Buffer.from(JSON.stringify(value));
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  writeFileSync(blobPath(digest), bytes);
  return { mediaType, digest, size: bytes.length };
}

const indexPath = join(layout, 'index.json');
const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { manifests: Descriptor[] };
const position = index.manifests.findIndex(
  (entry) => entry.annotations?.['org.opencontainers.image.ref.name'] === tag,
);
const entry = index.manifests[position];
if (!entry) {
  process.stderr.write(`image-healthcheck: no image tagged ${tag} in ${layout}\n`);
  process.exit(1);
}
const manifest = readJson<{ config: Descriptor }>(entry.digest);
const config = readJson<{ config?: Record<string, unknown> }>(manifest.config.digest);
config.config = { ...config.config, Healthcheck: HEALTHCHECK };
manifest.config = writeJson(manifest.config.mediaType, config);
const written = writeJson(entry.mediaType, manifest);
index.manifests[position] = { ...entry, digest: written.digest, size: written.size };
writeFileSync(indexPath, JSON.stringify(index));
