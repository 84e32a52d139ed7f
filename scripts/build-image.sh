#!/usr/bin/env bash
# Builds Kiln's container image from Debian's packages, with no container registry and no daemon:
#   mmdebstrap  a minimal Debian root file system (git, CA certificates, a user for Kiln);
#   this tree   Kiln's tracked files, its production dependencies and the bundled Node 24;
#   umoci       an OCI image layout from that root (user, entrypoint, ports, volume, settings);
#   skopeo      the same image as a `docker-archive` tarball for `docker load` / `podman load`.
#
# Usage: scripts/build-image.sh OUTPUT_DIR   (as root: mmdebstrap installs packages in a chroot)
# Writes OUTPUT_DIR/oci (layout, tag `kiln:latest`) and OUTPUT_DIR/kiln-image.tar. Set
# KILN_IMAGE_SUITE (bookworm) or KILN_IMAGE_MIRROR to build from another Debian suite or mirror.
# docs/deployment.md → "As a container" says how to run the result and how long a build takes.
set -euo pipefail

OUT=${1:?usage: scripts/build-image.sh OUTPUT_DIR}
SUITE=${KILN_IMAGE_SUITE:-bookworm}
MIRROR=${KILN_IMAGE_MIRROR:-}
TAG=${KILN_IMAGE_TAG:-latest}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NODE_MODULES=$(readlink -f "$ROOT/node_modules")

for tool in mmdebstrap umoci skopeo npm git strip; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is not installed" >&2; exit 2; }
done
[[ -x $NODE_MODULES/node/bin/node ]] || { echo "build-image: run npm ci first" >&2; exit 2; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STAGE=$WORK/kiln

echo "build-image: staging Kiln and its production dependencies"
mkdir -p "$STAGE"
# What git tracks, as it is in the working tree; tests and benches stay out of the image.
(cd "$ROOT" && git ls-files -z -- . ':!:test' ':!:bench' ':!:.ci' | tar --null -T - -cf -) |
  tar -xf - -C "$STAGE"
# The production dependencies, as npm resolves them from the lockfile and node_modules (offline),
# and the bundled Node, which is a development dependency because it is how a checkout gets
# Node 24. A path inside one already taken comes with it.
(cd "$ROOT" && { npm ls --omit=dev --all --parseable --loglevel=error || true; }) |
  sed -n "s|^$ROOT/||p" | grep '^node_modules/' | sort -u |
  awk 'index($0, last "/") != 1 { print; last = $0 }' > "$WORK/production.txt"
echo node_modules/node >> "$WORK/production.txt"
(cd "$ROOT" && tar -cf - -T "$WORK/production.txt") | tar -xf - -C "$STAGE"
# Debugging symbols are half the binary's size and nothing a server reads.
strip --strip-debug "$STAGE/node_modules/node/bin/node"

echo "build-image: building a Debian $SUITE root file system (${SECONDS}s)"
# The hooks run on the host with the new root as $1: Kiln goes to /opt/kiln (root's, read-only
# to the service), `kiln` on PATH, an unprivileged user whose home is the /data volume.
mmdebstrap --quiet --variant=minbase --include=git,ca-certificates \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook="mkdir -p \"\$1/opt\" && cp -a '$STAGE' \"\$1/opt/kiln\"" \
  --customize-hook='chown -R 0:0 "$1/opt/kiln" && chmod -R go-w "$1/opt/kiln"' \
  --customize-hook='ln -s /opt/kiln/bin/kiln.js "$1/usr/local/bin/kiln"' \
  --customize-hook='chroot "$1" useradd --system --uid 1000 --user-group --home-dir /data --shell /usr/sbin/nologin kiln' \
  --customize-hook='install -d -o 1000 -g 1000 -m 0700 "$1/data" "$1/var/cache/kiln"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*.log' \
  "$SUITE" "$WORK/rootfs.tar" ${MIRROR:+"$MIRROR"}

echo "build-image: writing the OCI image (${SECONDS}s)"
LAYOUT=$OUT/oci
rm -rf "$LAYOUT"
umoci init --layout "$LAYOUT"
umoci new --image "$LAYOUT:$TAG"
umoci unpack --image "$LAYOUT:$TAG" "$WORK/bundle" >/dev/null
tar -xf "$WORK/rootfs.tar" -C "$WORK/bundle/rootfs" --numeric-owner
umoci repack --image "$LAYOUT:$TAG" --history.created_by 'scripts/build-image.sh' "$WORK/bundle"
umoci config --image "$LAYOUT:$TAG" \
  --author 'Kiln' --os linux --architecture amd64 \
  --config.user kiln:kiln --config.workingdir /data \
  --config.entrypoint /usr/local/bin/kiln --config.cmd serve \
  --config.exposedports 3000/tcp --config.exposedports 2222/tcp --config.volume /data \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --config.env SERVICE_HTTP_HOST=0.0.0.0 --config.env SERVICE_DATA_DIR=/data \
  --config.env NODE_COMPILE_CACHE=/var/cache/kiln/compile \
  --config.label org.opencontainers.image.title=kiln \
  --config.label "org.opencontainers.image.version=$(cd "$ROOT" && node -p 'require("./package.json").version')"
# OCI has no field for a health check; Docker and Podman read Docker's, which an OCI config may
# carry. The check uses the bundled Node (the image has no curl) and the port Kiln listens on.
"$NODE_MODULES/node/bin/node" "$ROOT/scripts/image-healthcheck.ts" "$LAYOUT" "$TAG"
umoci gc --layout "$LAYOUT"

echo "build-image: writing the docker-archive tarball (${SECONDS}s)"
rm -f "$OUT/kiln-image.tar"
skopeo copy --quiet "oci:$LAYOUT:$TAG" "docker-archive:$OUT/kiln-image.tar:kiln:$TAG"
echo "build-image: wrote $LAYOUT (kiln:$TAG) and $OUT/kiln-image.tar ($(du -m "$OUT/kiln-image.tar" | cut -f1) MB) in ${SECONDS}s"
