#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL: initdb in a temp dir, pg_ctl on a free port on
# 127.0.0.1, KILN_TEST_DATABASE_URL pointing at its maintenance database; stopped and removed on
# exit. Usage: scripts/with-postgres.sh npm test
set -euo pipefail

find_bin() {
  local name=$1
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  local candidate
  candidate=$(ls -d /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1 || true)
  [[ -n "$candidate" ]] && echo "$candidate"
}

INITDB=$(find_bin initdb || true)
PG_CTL=$(find_bin pg_ctl || true)
if [[ -z "$INITDB" || -z "$PG_CTL" ]]; then
  echo "with-postgres: initdb/pg_ctl not found (apt-get install postgresql)" >&2
  exit 1
fi

# PostgreSQL refuses to run as root; run the server as an unprivileged account.
RUN_AS=()
if [[ $(id -u) -eq 0 ]]; then
  PG_USER=postgres
  id "$PG_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_USER"
  RUN_AS=(runuser -u "$PG_USER" --)
fi

PG_DIR=$(mktemp -d /tmp/kiln-pg.XXXXXX)
chmod 755 "$PG_DIR"
[[ ${#RUN_AS[@]} -gt 0 ]] && chown "$PG_USER" "$PG_DIR"
PORT=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")

cleanup() {
  "${RUN_AS[@]}" "$PG_CTL" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
trap cleanup EXIT

"${RUN_AS[@]}" "$INITDB" -D "$PG_DIR/data" -U kiln --auth=trust --encoding=UTF8 --no-locale >/dev/null
"${RUN_AS[@]}" "$PG_CTL" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $PORT -k $PG_DIR -c max_connections=300 -c fsync=off -c full_page_writes=off -c synchronous_commit=off" \
  start >/dev/null

export KILN_TEST_DATABASE_URL="postgres://kiln@127.0.0.1:$PORT/postgres"
echo "with-postgres: PostgreSQL on 127.0.0.1:$PORT" >&2
"$@"
