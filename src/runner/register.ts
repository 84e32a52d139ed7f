/**
 * `kiln runner register`: Ping until the server answers (once a second, as the Go runners do,
 * a bounded number of times), then Register with the registration token, and save what the
 * server answered in the state file.
 */
import { hostname } from 'node:os';
import { ConnectError } from '@connectrpc/connect';
import { runnerClients } from './client.ts';
import { labelNames } from './labels.ts';
import { type RunnerState, writeState } from './state-file.ts';
import { RUNNER_CAPABILITIES, RUNNER_VERSION } from './version.ts';

export type RegisterOptions = {
  readonly instance: string;
  readonly token: string;
  readonly name?: string;
  readonly labels: readonly string[];
  readonly ephemeral: boolean;
  readonly file: string;
  readonly log: (message: string) => void;
  /** Ping attempts before giving up. */
  readonly pingAttempts?: number;
};

/** Registration failed; the message is the server's, meant for the operator. */
export class RegisterError extends Error {}

async function pingUntilAnswered(options: RegisterOptions, name: string): Promise<void> {
  const { ping } = runnerClients(options.instance);
  const attempts = options.pingAttempts ?? 10;
  for (let attempt = 1; ; attempt++) {
    try {
      await ping.ping({ data: name });
      return;
    } catch (error) {
      const message = ConnectError.from(error).message;
      if (attempt >= attempts)
        throw new RegisterError(`cannot reach ${options.instance}: ${message}`);
      options.log(`cannot ping ${options.instance} yet (${message}), retrying`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Registers and writes the state file; answers what was saved. */
export async function register(options: RegisterOptions): Promise<RunnerState> {
  const name = options.name || hostname();
  await pingUntilAnswered(options, name);
  const { runner } = runnerClients(options.instance);
  let answer: Awaited<ReturnType<typeof runner.register>>;
  try {
    answer = await runner.register({
      name,
      token: options.token,
      version: RUNNER_VERSION,
      labels: labelNames(options.labels),
      ephemeral: options.ephemeral,
      capabilities: [...RUNNER_CAPABILITIES],
    });
  } catch (error) {
    throw new RegisterError(`registration refused: ${ConnectError.from(error).rawMessage}`);
  }
  const registered = answer.runner;
  if (!registered || registered.uuid === '' || registered.token === '') {
    throw new RegisterError('the server answered Register without a runner uuid and token');
  }
  if (registered.ephemeral !== options.ephemeral) {
    options.log(
      `the server registered the runner with ephemeral=${registered.ephemeral}; it will run one task and exit`,
    );
  }
  const state: RunnerState = {
    id: Number(registered.id),
    uuid: registered.uuid,
    name: registered.name || name,
    token: registered.token,
    address: options.instance,
    labels: [...options.labels],
    ephemeral: registered.ephemeral || options.ephemeral,
  };
  await writeState(options.file, state);
  options.log(`registered runner "${state.name}" (id ${state.id}) with ${options.instance}`);
  return state;
}
