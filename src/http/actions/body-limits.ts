/**
 * How large a request body each runner-protocol method accepts, on the wire and once gunzipped.
 *
 * Invariant: no call to `/api/actions` makes the server read, inflate or decode more than its
 * method's cap, and only Ping and Register are read at all before the runner's headers are
 * checked. The caps are sized from what runners send, well above it, and small enough that
 * decoding the largest accepted body costs the main thread a few milliseconds:
 * - Register carries a registration token, a name, a version and labels: a few hundred bytes.
 * - Declare carries a version, labels and capabilities; FetchTask a version number.
 * - UpdateTask carries step states and the outputs not yet acknowledged; an output value is at
 *   most 1 MiB (as in Gitea), so the cap is 1 MiB plus room for the steps.
 * - UpdateLog carries log rows: the built-in runner sends at most 5,000 rows and 1 MiB of rows
 *   a call, act_runner a few hundred KB; the cap is twice the larger.
 * JSON bodies, which no runner sends (they speak binary protobuf), are held to `JSON_BODY_BYTES`
 * whatever the method: a JSON body costs several times its binary form to decode.
 */

/** A method's caps, in bytes: as received, and after `Content-Encoding: gzip` is undone. */
export type BodyLimit = { readonly wireBytes: number; readonly decodedBytes: number };

const KIB = 1024;
const MIB = 1024 * KIB;

/** Caps by procedure path below the prefix (`/runner.v1.RunnerService/UpdateLog`). */
export const BODY_LIMITS: Readonly<Record<string, BodyLimit>> = {
  '/ping.v1.PingService/Ping': { wireBytes: 4 * KIB, decodedBytes: 4 * KIB },
  '/runner.v1.RunnerService/Register': { wireBytes: 16 * KIB, decodedBytes: 16 * KIB },
  '/runner.v1.RunnerService/Declare': { wireBytes: 64 * KIB, decodedBytes: 64 * KIB },
  '/runner.v1.RunnerService/FetchTask': { wireBytes: 4 * KIB, decodedBytes: 4 * KIB },
  '/runner.v1.RunnerService/UpdateTask': {
    wireBytes: MIB + 128 * KIB,
    decodedBytes: MIB + 128 * KIB,
  },
  '/runner.v1.RunnerService/UpdateLog': { wireBytes: 2 * MIB, decodedBytes: 2 * MIB },
};

/** The cap of a JSON body, for every method. */
export const JSON_BODY_BYTES = 64 * KIB;

/** What an unknown path is held to (it is answered `unimplemented` without being read). */
const SMALLEST: BodyLimit = { wireBytes: 4 * KIB, decodedBytes: 4 * KIB };

/**
 * The caps of the procedure at `url` (a route path, prefix included), never above `ceiling`
 * (the edge's overall limit) and, for JSON, never above `JSON_BODY_BYTES`.
 */
export function bodyLimitOf(url: string, json: boolean, ceiling: number): BodyLimit {
  const procedure = `/${url.split('/').slice(-2).join('/')}`;
  const limit = BODY_LIMITS[procedure] ?? SMALLEST;
  const most = json ? Math.min(ceiling, JSON_BODY_BYTES) : ceiling;
  return {
    wireBytes: Math.min(limit.wireBytes, most),
    decodedBytes: Math.min(limit.decodedBytes, most),
  };
}

/**
 * The artifact protocols' caps. Their JSON bodies name an artifact and a size (a few hundred
 * bytes); their chunks are streamed to disk as they arrive, never held, and are held to their
 * `Content-Range` length, which may not pass `ARTIFACT_CHUNK_BYTES` (the clients send 8 MiB).
 */
export const ARTIFACT_JSON_BYTES = 16 * KIB;
export const ARTIFACT_CHUNK_BYTES = 64 * MIB;
