import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerAfter } from './answer-after.ts';
import { encodePktLine } from './pkt-line.ts';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `whole` cut into chunks at the given offsets, as the network might hand it over. */
function chunked(whole: Buffer, cuts: readonly number[]): Readable {
  const at = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, whole.length]) {
    parts.push(whole.subarray(from, cut));
    from = cut;
  }
  return Readable.from(parts.filter((part) => part.length > 0));
}

const band = (channel: number, text: string) =>
  encodePktLine(Buffer.concat([Buffer.from([channel]), Buffer.from(text)]));
const report = Buffer.concat([band(1, '000eunpack ok\n'), Buffer.from('0000')]);
const notes = (sideband: boolean) => ({
  sideband: () => sideband,
  commandsRead: () => true,
  lines: async () => ['', "Create a new pull request for 'x':"],
});

/** `report` with the notes on channel 2 before its final flush. */
const withNotes = Buffer.concat([
  band(1, '000eunpack ok\n'),
  band(2, '\n'),
  band(2, "Create a new pull request for 'x':\n"),
  Buffer.from('0000'),
]);

describe('answerAfter', () => {
  it('puts the notes on channel 2 just before the final flush, however the answer is cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 6 }), async (cuts) => {
        const out = await collect(answerAfter(chunked(report, cuts), async () => {}, notes(true)));
        expect(out.equals(withNotes)).toBe(true);
      }),
    );
  });

  it('passes the answer untouched without side-band, without notes, or when it ends otherwise', async () => {
    const plain = await collect(answerAfter(chunked(report, [3]), async () => {}, notes(false)));
    expect(plain.equals(report)).toBe(true);
    const none = await collect(answerAfter(chunked(report, [5]), async () => {}));
    expect(none.equals(report)).toBe(true);
    const cut = report.subarray(0, 9);
    const short = await collect(answerAfter(chunked(cut, [2]), async () => {}, notes(true)));
    expect(short.equals(cut)).toBe(true);
  });

  it('passes a conversation’s advertisement whole while its client is still to answer', async () => {
    const advertisement = Buffer.concat([
      encodePktLine(`${'1'.repeat(40)} refs/heads/main\0report-status side-band-64k\n`),
      Buffer.from('0000'),
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: advertisement.length - 1 }), { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (advertCuts, reportCuts) => {
          const git = new PassThrough();
          let commandsRead = false;
          const answer = answerAfter(git, async () => {}, {
            ...notes(true),
            commandsRead: () => commandsRead,
          });
          const seen: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => seen.push(chunk));
          for (const part of await chunked(advertisement, advertCuts).toArray()) git.write(part);
          // The client gets every byte of it, its final flush too, with git still running.
          for (
            let tries = 0;
            Buffer.concat(seen).length < advertisement.length && tries < 50;
            tries++
          ) {
            await new Promise((resolve) => setImmediate(resolve));
          }
          expect(Buffer.concat(seen).equals(advertisement)).toBe(true);
          commandsRead = true;
          for (const part of await chunked(report, reportCuts).toArray()) git.write(part);
          git.end();
          await once(answer, 'end');
          expect(Buffer.concat(seen).equals(Buffer.concat([advertisement, withNotes]))).toBe(true);
        },
      ),
    );
  });
});
