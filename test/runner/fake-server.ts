/**
 * A runner.v1 server written from the protocol notes alone (§4 of runner-protocol.md), for
 * driving the real `kiln runner` process: Ping and Register without credentials, everything else
 * behind `x-runner-uuid`/`x-runner-token` (`unauthenticated` "unregistered runner" otherwise),
 * `tasks_version` never 0, UpdateLog acknowledgement by stored row count with gap and overlap
 * rules and sealing on `no_more`, outputs first-write-wins with every stored key in
 * `sent_outputs`, and RESULT_UNSPECIFIED for a live task unless it is being cancelled.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { PingService } from '../../src/gen/ping/v1/services_pb.js';
import {
  type DeclareRequest,
  type FetchTaskRequest,
  type RegisterRequest,
  Result,
  type StepState,
} from '../../src/gen/runner/v1/messages_pb.js';
import { RunnerService } from '../../src/gen/runner/v1/services_pb.js';

export const REGISTRATION_TOKEN = 'registration-token-for-tests';

/** A task waiting to be handed out. */
export type QueuedTask = {
  workflow: string;
  context?: Record<string, unknown>;
  secrets?: Record<string, string>;
  vars?: Record<string, string>;
};

/** What the server stored about a task the runner took. */
export type TaskRecord = {
  id: bigint;
  result: Result;
  steps: StepState[];
  outputs: Map<string, string>;
  rows: string[];
  sealed: boolean;
  cancelRequested: boolean;
  updates: number;
};

type Runner = { id: bigint; uuid: string; token: string; name: string };

export class FakeRunnerServer {
  readonly pings: string[] = [];
  readonly registrations: RegisterRequest[] = [];
  readonly declarations: DeclareRequest[] = [];
  readonly fetches: FetchTaskRequest[] = [];
  readonly tasks = new Map<bigint, TaskRecord>();
  readonly queue: QueuedTask[] = [];
  readonly runners = new Map<string, Runner>();
  /** UpdateLog calls still to fail with `unavailable` (to exercise resending). */
  failLogCalls = 0;
  #version = 1n;
  #nextTask = 1n;
  #server: Server | undefined;
  url = '';

  /** Queues a task and bumps tasks_version, as a job becoming waiting does. */
  enqueue(task: QueuedTask): bigint {
    this.queue.push(task);
    this.#version++;
    return this.#nextTask + BigInt(this.queue.length - 1);
  }

  /** Forgets every runner: their next call is `unauthenticated`. */
  revokeAll(): void {
    this.runners.clear();
  }

  #auth(context: HandlerContext): Runner {
    const uuid = context.requestHeader.get('x-runner-uuid') ?? '';
    const runner = this.runners.get(uuid);
    if (!runner || runner.token !== context.requestHeader.get('x-runner-token')) {
      throw new ConnectError('unregistered runner', Code.Unauthenticated);
    }
    return runner;
  }

  #task(id: bigint): TaskRecord {
    const task = this.tasks.get(id);
    if (!task) throw new ConnectError('invalid runner for task', Code.NotFound);
    return task;
  }

  #routes = (router: ConnectRouter) => {
    router.service(PingService, {
      ping: (request) => {
        this.pings.push(request.data);
        return { data: `Hello, ${request.data}!` };
      },
    });
    router.service(RunnerService, {
      register: (request) => {
        this.registrations.push(request);
        if (request.token !== REGISTRATION_TOKEN) {
          throw new ConnectError('runner registration token not found', Code.InvalidArgument);
        }
        const runner = {
          id: BigInt(this.runners.size + 1),
          uuid: randomUUID(),
          token: randomUUID(),
          name: request.name,
        };
        this.runners.set(runner.uuid, runner);
        return {
          runner: {
            ...runner,
            version: request.version,
            labels: request.labels,
            ephemeral: request.ephemeral,
          },
        };
      },
      declare: (request, context) => {
        const runner = this.#auth(context);
        this.declarations.push(request);
        return {
          runner: {
            id: runner.id,
            uuid: runner.uuid,
            name: runner.name,
            version: request.version,
            labels: request.labels,
          },
        };
      },
      fetchTask: (request, context) => {
        this.#auth(context);
        this.fetches.push(request);
        if (request.tasksVersion === this.#version) return { tasksVersion: this.#version };
        const next = this.queue.shift();
        if (!next) return { tasksVersion: this.#version };
        const id = this.#nextTask++;
        this.tasks.set(id, {
          id,
          result: Result.UNSPECIFIED,
          steps: [],
          outputs: new Map(),
          rows: [],
          sealed: false,
          cancelRequested: false,
          updates: 0,
        });
        return {
          tasksVersion: this.#version,
          task: {
            id,
            workflowPayload: new TextEncoder().encode(next.workflow),
            context: {
              repository: 'alice/demo',
              sha: 'f'.repeat(40),
              ref: 'refs/heads/main',
              event_name: 'push',
              run_id: '5',
              run_number: '3',
              actor: 'alice',
              server_url: this.url,
              api_url: `${this.url}/api/v1`,
              gitea_default_actions_url: this.url,
              token: 'task-token-0123',
              event: {},
              ...next.context,
            },
            secrets: {
              GITHUB_TOKEN: 'task-token-0123',
              GITEA_TOKEN: 'task-token-0123',
              ...next.secrets,
            },
            vars: next.vars ?? {},
          },
        };
      },
      updateTask: (request, context) => {
        this.#auth(context);
        const task = this.#task(request.state?.id ?? 0n);
        task.updates++;
        if (task.result === Result.UNSPECIFIED && request.state) {
          task.steps = request.state.steps;
          for (const [key, value] of Object.entries(request.outputs)) {
            if (!task.outputs.has(key)) task.outputs.set(key, value);
          }
          if (request.state.result !== Result.UNSPECIFIED) {
            task.result = task.cancelRequested ? Result.CANCELLED : request.state.result;
          }
        }
        const answer = task.cancelRequested ? Result.CANCELLED : task.result;
        return { state: { id: task.id, result: answer }, sentOutputs: [...task.outputs.keys()] };
      },
      updateLog: (request, context) => {
        this.#auth(context);
        const task = this.#task(request.taskId);
        if (this.failLogCalls > 0) {
          this.failLogCalls--;
          throw new ConnectError('try again', Code.Unavailable);
        }
        const ack = BigInt(task.rows.length);
        const index = request.index;
        const end = index + BigInt(request.rows.length);
        if (task.sealed && request.rows.length > 0 && end > ack) {
          throw new ConnectError('log file has been archived', Code.AlreadyExists);
        }
        if (index <= ack && end > ack) {
          for (const row of request.rows.slice(Number(ack - index))) task.rows.push(row.content);
        }
        if (request.noMore && index <= ack) task.sealed = true;
        return { ackIndex: BigInt(task.rows.length) };
      },
    });
  };

  async listen(): Promise<void> {
    this.#server = createServer(
      connectNodeAdapter({ routes: this.#routes, requestPathPrefix: '/api/actions' }),
    );
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}
