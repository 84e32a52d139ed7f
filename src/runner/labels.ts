/** Runner labels: the defaults for this host, and the bare names sent on the wire. */
import { arch, platform } from 'node:os';

const PLATFORM_LABEL: Record<string, string> = {
  linux: 'linux',
  darwin: 'macos',
  win32: 'windows',
};

/** `self-hosted`, the OS and architecture of this host, and `kiln`. */
export function defaultLabels(): string[] {
  return ['self-hosted', PLATFORM_LABEL[platform()] ?? platform(), arch(), 'kiln'];
}

/** `ubuntu-latest:host` → `ubuntu-latest`: servers match on names only. */
export function labelNames(labels: readonly string[]): string[] {
  return labels.map((label) => label.split(':')[0] ?? label).filter((name) => name !== '');
}

/** Splits `--labels a,b` into labels, or answers the defaults when none are given. */
export function parseLabels(flag: string | undefined): string[] {
  if (flag === undefined || flag.trim() === '') return defaultLabels();
  return flag
    .split(',')
    .map((label) => label.trim())
    .filter((label) => label !== '');
}
