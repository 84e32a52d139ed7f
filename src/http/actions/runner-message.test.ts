import { describe, expect, it } from 'vitest';
import { RunnerStatus } from '../../gen/runner/v1/messages_pb.js';
import { foldId } from '../../lib/ids.ts';
import { toRunnerMessage } from './runner-message.ts';
import type { RunnerRecord } from './runner-registry.ts';

const record: RunnerRecord = {
  id: '0b6f7c1e-8a3d-4c5e-9f10-2a3b4c5d6e7f',
  uuid: 'c0ffee00-1234-4abc-8def-0123456789ab',
  name: 'build-box',
  version: 'v0.2.11',
  labels: ['ubuntu-latest', 'self-hosted'],
  ephemeral: true,
  status: 'idle',
};

describe('toRunnerMessage', () => {
  it('copies the record and folds the internal key into the wire id', () => {
    const message = toRunnerMessage(record);
    expect(message.id).toBe(BigInt(foldId(record.id)));
    expect(message.uuid).toBe(record.uuid);
    expect(message.name).toBe('build-box');
    expect(message.version).toBe('v0.2.11');
    expect(message.labels).toEqual(['ubuntu-latest', 'self-hosted']);
    expect(message.ephemeral).toBe(true);
  });

  it('leaves the token and the deprecated label fields empty unless a secret is given', () => {
    const message = toRunnerMessage(record);
    expect(message.token).toBe('');
    expect(message.agentLabels).toEqual([]);
    expect(message.customLabels).toEqual([]);
    expect(toRunnerMessage(record, { token: 's3cret' }).token).toBe('s3cret');
  });

  it('maps every status to its enum value', () => {
    const cases = [
      ['unspecified', RunnerStatus.UNSPECIFIED],
      ['idle', RunnerStatus.IDLE],
      ['active', RunnerStatus.ACTIVE],
      ['offline', RunnerStatus.OFFLINE],
    ] as const;
    for (const [status, wire] of cases) {
      expect(toRunnerMessage({ ...record, status }).status).toBe(wire);
    }
  });

  it('does not share the labels array with the record', () => {
    const labels = ['a'];
    const message = toRunnerMessage({ ...record, labels });
    message.labels.push('b');
    expect(labels).toEqual(['a']);
  });
});
