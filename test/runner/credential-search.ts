/**
 * A job step (a Node script, `shell: node`) that looks everywhere a job could look for the
 * runner's token and for the path of its registration file: every file it can read (beside
 * system trees and dependency folders, within a time bound) and, for every process it can see,
 * `/proc/<pid>/cmdline`, `environ`, `maps`, the targets of `fd/*` and the readable memory. The
 * needles come reversed in NEEDLE_TOKEN and NEEDLE_PATH, so the step's own files hold neither.
 * It prints `FOUND <needle> in <where>` for each hit and one `SEARCHED …` line at the end; it
 * stops looking once it has found the token.
 */
export const SEARCH_JS = String.raw`const fs = require('node:fs');
const reverse = (s) => [...s].reverse().join('');
const needles = [
  ['token', Buffer.from(reverse(process.env.NEEDLE_TOKEN))],
  ['path', Buffer.from(reverse(process.env.NEEDLE_PATH))],
];
const found = new Set();
// Once the token turns up the search has shown what it looks for: in an isolated job that is
// the failure, and an unisolated one need not read every other file and process to prove it.
let tokenFound = false;
const check = (where, bytes) => {
  for (const [name, needle] of needles) {
    if (!bytes.includes(needle)) continue;
    found.add(name + ' in ' + where);
    if (name === 'token') tokenFound = true;
  }
};
const SKIP = new Set(['/proc', '/sys', '/dev', '/usr', '/lib', '/lib32', '/lib64', '/libx32',
  '/bin', '/sbin', '/boot', '/snap', '/var/cache', '/var/lib/apt', '/var/lib/dpkg']);
let files = 0;
let filesDone = true;
const fsDeadline = Date.now() + 25000;
const queue = ['/'];
while (queue.length > 0) {
  if (tokenFound) break;
  if (Date.now() > fsDeadline) { filesDone = false; break; }
  const dir = queue.shift();
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { continue; }
  for (const entry of entries) {
    const path = (dir === '/' ? '' : dir) + '/' + entry.name;
    if (SKIP.has(path) || entry.name === 'node_modules' || entry.name === '.git') continue;
    if (entry.isDirectory()) queue.push(path);
    else if (entry.isFile()) {
      try {
        if (fs.statSync(path).size > 4 << 20) continue;
        check(path, fs.readFileSync(path));
        files++;
      } catch {}
    }
  }
}
try { check('the registration file', fs.readFileSync(reverse(process.env.NEEDLE_PATH))); } catch {}
let pids = 0;
let memBytes = 0;
const procDeadline = Date.now() + 20000;
const CHUNK = 4 << 20;
for (const pid of fs.readdirSync('/proc')) {
  if (tokenFound) break;
  if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
  pids++;
  const base = '/proc/' + pid;
  for (const name of ['cmdline', 'environ', 'maps']) {
    try { check(base + '/' + name, fs.readFileSync(base + '/' + name)); } catch {}
  }
  try {
    for (const fd of fs.readdirSync(base + '/fd')) {
      try { check(base + '/fd/' + fd, Buffer.from(fs.readlinkSync(base + '/fd/' + fd))); } catch {}
    }
  } catch {}
  let maps = '';
  let mem;
  try { maps = fs.readFileSync(base + '/maps', 'utf8'); mem = fs.openSync(base + '/mem', 'r'); } catch { continue; }
  const buffer = Buffer.alloc(CHUNK);
  for (const line of maps.split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) r/.exec(line);
    if (!range || Date.now() > procDeadline) continue;
    const end = BigInt('0x' + range[2]);
    for (let at = BigInt('0x' + range[1]); at < end; at += BigInt(CHUNK - 256)) {
      const length = Number(end - at < BigInt(CHUNK) ? end - at : BigInt(CHUNK));
      let read = 0;
      try { read = fs.readSync(mem, buffer, 0, length, at); } catch { break; }
      memBytes += read;
      check(base + '/mem', buffer.subarray(0, read));
      if (Date.now() > procDeadline || tokenFound) break;
    }
  }
  fs.closeSync(mem);
}
for (const hit of found) console.log('FOUND ' + hit);
console.log('SEARCHED files=' + files + ' complete=' + filesDone + ' pids=' + pids + ' mem=' + memBytes);
`;

/** The `FOUND …` lines of a search step's log, without their time stamps. */
export function findings(log: string): string[] {
  return [...log.matchAll(/FOUND (.*)$/gm)].map((match) => (match[1] ?? '').trim());
}
