import { create } from '@bufbuild/protobuf';
import { type Runner, RunnerSchema, RunnerStatus } from '../../gen/runner/v1/messages_pb.js';
import { foldId } from '../../lib/ids.ts';
import type { RunnerRecord, RunnerStatusName } from './runner-registry.ts';

const wireStatus: Readonly<Record<RunnerStatusName, RunnerStatus>> = {
  unspecified: RunnerStatus.UNSPECIFIED,
  idle: RunnerStatus.IDLE,
  active: RunnerStatus.ACTIVE,
  offline: RunnerStatus.OFFLINE,
};

/**
 * The `runner.v1.Runner` message describing a runner record. Pure.
 *
 * `token` is the per-runner secret and belongs only in RegisterResponse: pass it there and nowhere
 * else (Declare answers with an empty token, as Gitea does). The deprecated `agent_labels` and
 * `custom_labels` stay empty; runners read `labels`.
 *
 * @example
 * toRunnerMessage(record, { token: secret }) // RegisterResponse.runner
 * toRunnerMessage(record)                    // DeclareResponse.runner
 */
export function toRunnerMessage(record: RunnerRecord, secret?: { readonly token: string }): Runner {
  return create(RunnerSchema, {
    id: BigInt(foldId(record.id)),
    uuid: record.uuid,
    token: secret?.token ?? '',
    name: record.name,
    status: wireStatus[record.status],
    version: record.version,
    labels: [...record.labels],
    ephemeral: record.ephemeral,
  });
}
