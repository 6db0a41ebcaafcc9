import { type Command, InvalidArgumentError, Option } from 'commander';
import { ENVIRONMENTS } from '../app/config.ts';
import { UPSTREAM_PROVIDERS } from '../tts/providers/upstream-registry.ts';
import type { Output } from './output.ts';

/** Adds `--json`: one JSON object on stdout instead of text. */
export function json(command: Command): Command {
  return command.option('--json', 'print one JSON object on stdout (for scripts)');
}

/** The output a command's options ask for. */
export function outputOf(options: { json?: boolean }): Output {
  return options.json ? 'json' : 'text';
}

/** Parses a number >= 0 (commander argument parser). */
export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}

/** The mandatory `--workspace <id>`. */
export const workspaceOption = () =>
  new Option('--workspace <id>', 'workspace id').makeOptionMandatory();

/** The mandatory `--environment <env>`. */
export const environmentOption = () =>
  new Option('--environment <env>', 'environment').choices(ENVIRONMENTS).makeOptionMandatory();

/** The mandatory `--provider <name>` (upstream providers). */
export const providerOption = () =>
  new Option('--provider <name>', 'upstream provider')
    .choices(UPSTREAM_PROVIDERS)
    .makeOptionMandatory();
