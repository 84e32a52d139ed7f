/**
 * A runner client that replays the call sequence of act_runner / the Forgejo runner over the
 * generated protos: Register (with capabilities) and Declare once, a FetchTask loop keeping
 * `tasks_version` (reset to 0 after a task arrives), UpdateLog from row 0 with re-sends of
 * what was not acknowledged and a final flush with `no_more`, UpdateTask on every step change
 * and as heartbeats (outputs re-sent until listed in `sent_outputs`), and cancellation learned
 * only from an UpdateTask answer.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createClient } from '@connectrpc/connect';
import { parse } from 'yaml';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { RunnerScope } from '../../src/domain/runners/runner.types.ts';
import { Result, type Task } from '../../src/gen/runner/v1/messages_pb.js';
import { RunnerService } from '../../src/gen/runner/v1/services_pb.js';
import type { TestServer } from '../support/server.ts';
import { runnerHeaders, runnerTransport } from './fixtures.ts';

/** What the fake job does: per step, log lines and a result; outputs set along the way. */
export type Script = {
  readonly steps?: readonly { readonly lines: readonly string[]; readonly result?: Result }[];
  readonly outputs?: Record<string, string>;
  /** Called between steps; lets a test cancel the run while the job is "running". */
  readonly between?: (step: number) => Promise<void>;
};

export type Outcome = {
  readonly cancelled: boolean;
  readonly result: Result;
  readonly acks: number[];
  readonly sentOutputs: string[];
};

export class ReplayRunner {
  readonly client;
  readonly headers: Record<string, string>;
  version = 0n;
  readonly versionsSeen: bigint[] = [];

  private constructor(kiln: TestServer, credentials: { uuid: string; token: string }) {
    this.client = createClient(RunnerService, runnerTransport(kiln));
    this.headers = runnerHeaders(credentials);
  }

  static async register(
    kiln: TestServer,
    options: { labels?: string[]; scope?: RunnerScope; ephemeral?: boolean } = {},
  ): Promise<ReplayRunner> {
    const { token } = await kiln.app.services.runnerAdmin.createToken(
      OPERATOR,
      options.scope ?? { kind: 'instance' },
    );
    const client = createClient(RunnerService, runnerTransport(kiln));
    const labels = options.labels ?? ['ubuntu-latest'];
    const { runner } = await client.register({
      // A name of its own: registering again under one name replaces the earlier runner.
      name: `replay-${crypto.randomUUID().slice(0, 8)}`,
      token,
      version: 'v0.2.11',
      labels,
      ephemeral: options.ephemeral ?? false,
      capabilities: ['cancelling'],
    });
    if (runner === undefined) throw new Error('no runner in RegisterResponse');
    const replay = new ReplayRunner(kiln, runner);
    await replay.client.declare({ version: 'v0.2.11', labels }, { headers: replay.headers });
    return replay;
  }

  /** One FetchTask with the runner's version bookkeeping. */
  async poll(): Promise<Task | undefined> {
    const answer = await this.client.fetchTask(
      { tasksVersion: this.version },
      { headers: this.headers },
    );
    this.versionsSeen.push(answer.tasksVersion);
    if (answer.tasksVersion > this.version) this.version = answer.tasksVersion;
    // After a task the runner asks with 0 once, to force a real lookup.
    if (answer.task !== undefined) this.version = 0n;
    return answer.task;
  }

  /** Polls until a task arrives (at most `tries` polls, 100 ms apart). */
  async next(tries = 50): Promise<Task> {
    for (let i = 0; i < tries; i++) {
      const task = await this.poll();
      if (task !== undefined) return task;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('no task arrived');
  }

  /** Runs a task as a runner would and reports it; stops early when told the task is cancelled. */
  async run(task: Task, script: Script = {}): Promise<Outcome> {
    const steps = script.steps ?? [{ lines: ['hello'] }];
    const acks: number[] = [];
    let logged = 0;
    let acked = 0;
    const pending: string[] = [];
    const outputs = { ...(script.outputs ?? {}) };
    let sentOutputs: string[] = [];
    const stepStates: {
      id: bigint;
      result: Result;
      logIndex: bigint;
      logLength: bigint;
      startedAt?: ReturnType<typeof timestampFromDate>;
      stoppedAt?: ReturnType<typeof timestampFromDate>;
    }[] = [];
    const flush = async (noMore: boolean) => {
      const rows = pending.map((content) => ({ time: timestampFromDate(new Date()), content }));
      const answer = await this.client.updateLog(
        { taskId: task.id, index: BigInt(acked), rows, noMore },
        { headers: this.headers },
      );
      const ack = Number(answer.ackIndex);
      if (ack < acked) throw new Error('submitted logs are lost');
      pending.splice(0, ack - acked);
      acked = ack;
      acks.push(ack);
    };
    const report = async (result: Result) => {
      const unsent = Object.fromEntries(
        Object.entries(outputs).filter(([key]) => !sentOutputs.includes(key)),
      );
      const answer = await this.client.updateTask(
        {
          state: {
            id: task.id,
            result,
            startedAt: timestampFromDate(new Date()),
            steps: stepStates,
            ...(result === Result.UNSPECIFIED ? {} : { stoppedAt: timestampFromDate(new Date()) }),
          },
          outputs: unsent,
        },
        { headers: this.headers },
      );
      sentOutputs = answer.sentOutputs;
      return answer.state?.result ?? Result.UNSPECIFIED;
    };
    let finalResult: Result = Result.SUCCESS;
    let cancelled = false;
    for (const [index, step] of steps.entries()) {
      stepStates.push({
        id: BigInt(index),
        result: Result.UNSPECIFIED,
        logIndex: BigInt(logged),
        logLength: 0n,
        startedAt: timestampFromDate(new Date()),
      });
      if ((await report(Result.UNSPECIFIED)) !== Result.UNSPECIFIED) {
        cancelled = true;
        break;
      }
      pending.push(...step.lines);
      logged += step.lines.length;
      await flush(false);
      // The same batch again, as after a lost answer: acknowledged, nothing stored twice.
      await this.client.updateLog(
        {
          taskId: task.id,
          index: 0n,
          rows: [{ time: timestampFromDate(new Date()), content: 'x' }],
        },
        { headers: this.headers },
      );
      const state = stepStates[index];
      if (state !== undefined) {
        state.logLength = BigInt(step.lines.length);
        state.result = step.result ?? Result.SUCCESS;
        state.stoppedAt = timestampFromDate(new Date());
      }
      if (step.result !== undefined && step.result !== Result.SUCCESS) finalResult = step.result;
      await script.between?.(index);
      // Heartbeat: still running.
      if ((await report(Result.UNSPECIFIED)) !== Result.UNSPECIFIED) {
        cancelled = true;
        break;
      }
    }
    if (cancelled) {
      pending.push('cancelled by the server');
      finalResult = Result.CANCELLED;
    }
    // The final flush: retried until everything sent is acknowledged (here once suffices).
    if (pending.length === 0) pending.push('');
    await flush(true);
    await flush(true);
    let result = await report(finalResult);
    // Outputs not yet acknowledged are re-sent with the final state.
    for (let i = 0; i < 3 && Object.keys(outputs).some((key) => !sentOutputs.includes(key)); i++) {
      result = await report(finalResult);
    }
    return { cancelled, result, acks, sentOutputs };
  }
}

/** The single job of a task's workflow payload. */
export function payloadOf(task: Task): {
  name?: string;
  jobs: Record<string, Record<string, unknown>>;
} {
  return parse(new TextDecoder().decode(task.workflowPayload)) as {
    jobs: Record<string, Record<string, unknown>>;
  };
}
