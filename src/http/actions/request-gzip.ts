import { Code, ConnectError } from '@connectrpc/connect';
import type { Compression } from '@connectrpc/connect/protocol';
import { compressionGzip } from '@connectrpc/connect-node';

/**
 * gzip for the runner protocol, as connect-es provides it, except that a request body that is
 * not valid gzip is the client's `invalid_argument` (400). connect-es answers a truncated gzip
 * body (zlib's "unexpected end of file") with `internal`, a 500.
 */
export const requestGzip: Compression = {
  name: compressionGzip.name,
  compress: (bytes) => compressionGzip.compress(bytes),
  decompress: (bytes, readMaxBytes) =>
    compressionGzip.decompress(bytes, readMaxBytes).catch((error: unknown) => {
      const code = ConnectError.from(error).code;
      if (code === Code.ResourceExhausted || code === Code.InvalidArgument) throw error;
      throw new ConnectError(
        'request body is not valid gzip',
        Code.InvalidArgument,
        undefined,
        undefined,
        error,
      );
    }),
};
