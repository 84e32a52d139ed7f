import { sha256Hex } from '../../../lib/crypto.ts';
import { Invalid } from '../../errors.ts';
import type { ArtifactBlobKey } from './artifact.types.ts';

/** Characters the toolkit itself refuses in artifact names, plus control characters. */
const BAD_NAME = /[":<>|*?\\/\p{Cc}]/u;
const MAX_NAME_LENGTH = 256;
const MAX_PATH_BYTES = 1024;

/**
 * Checks an artifact name. Names never reach the file system (blobs are named by ids), but they
 * are shown on pages, used as zip names and matched exactly, so they are held to the toolkit's
 * own rules. @throws Invalid
 */
export function checkArtifactName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw new Invalid(`artifact name must be 1 to ${MAX_NAME_LENGTH} characters`);
  }
  if (BAD_NAME.test(name)) {
    throw new Invalid('artifact name may not contain " : < > | * ? \\ / or control characters');
  }
  return name;
}

/**
 * Checks a file path inside an artifact (`name/dir/file`): it must start with the artifact's
 * name, and its segments be non-empty, not `.` or `..`, without backslashes or control
 * characters, so that it is safe as a name inside a zip a person extracts. @throws Invalid
 */
export function checkItemPath(artifactName: string, path: unknown): string {
  if (typeof path !== 'string' || Buffer.byteLength(path) > MAX_PATH_BYTES) {
    throw new Invalid(`itemPath must be at most ${MAX_PATH_BYTES} bytes`);
  }
  const segments = path.split('/');
  if (segments[0] !== artifactName || segments.length < 2) {
    throw new Invalid('itemPath must be the artifact name followed by a file path');
  }
  for (const segment of segments.slice(1)) {
    if (segment === '' || segment === '.' || segment === '..' || /[\\\p{Cc}]/u.test(segment)) {
      throw new Invalid('itemPath has an empty, relative or unsafe segment');
    }
  }
  return path;
}

/**
 * Where a file of an artifact is stored: `<id % 256 as 2 hex>/<id>/<sha256 of path>`. Nothing a
 * client sends becomes part of a stored name, so no path can escape the artifacts folder.
 */
export function fileBlobKey(artifactId: number, path: string): ArtifactBlobKey {
  return [...artifactFolder(artifactId), sha256Hex(path)];
}

/** The folder of all an artifact's files, removed with it. */
export function artifactFolder(artifactId: number): ArtifactBlobKey {
  return [(artifactId % 256).toString(16).padStart(2, '0'), String(artifactId)];
}
