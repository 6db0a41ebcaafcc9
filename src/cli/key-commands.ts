import type { Command } from 'commander';
import { Option } from 'commander';
import { ENVIRONMENTS } from '../app/config.ts';
import { ApiKeys } from '../auth/api-keys.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { json, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

/** `awp key create|list|revoke`: permanent workspace API keys. */
export function registerKeyCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
  const key = program.command('key').description('permanent workspace API keys');
  json(
    key
      .command('create')
      .description('create a key; the full key is printed once and never again')
      .addOption(workspaceOption())
      .addOption(
        new Option('--environment <env>', 'environment the key works in')
          .choices(ENVIRONMENTS)
          .makeOptionMandatory(),
      )
      .requiredOption('--label <label>', 'what the key is for'),
  ).action(async (options) => {
    const created = await new ApiKeys((await db()).db).create(
      options.workspace,
      options.environment,
      options.label,
    );
    const { key: secret, ...info } = created;
    printResult(
      outputOf(options),
      { id: created.id, key: secret, info },
      `Created key ${created.id} (${created.environment}). Store it now; it is not shown again:\n${secret}`,
    );
  });
  json(
    key
      .command('list')
      .description('list keys (prefix, status, last use)')
      .addOption(workspaceOption()),
  ).action(async (options) => {
    const keys = await new ApiKeys((await db()).db).list(options.workspace);
    printResult(
      outputOf(options),
      { keys },
      keys
        .map(
          (k) =>
            `${k.id}  ${k.prefix}…  ${k.environment}  ${k.status}  last used ${k.lastUsedAt ?? 'never'}  ${k.label}`,
        )
        .join('\n') || 'No keys.',
    );
  });
  json(
    key
      .command('revoke')
      .description('revoke a key; every api process refuses it within one second')
      .addOption(workspaceOption())
      .requiredOption('--key <id>', 'key id (key_...)'),
  ).action(async (options) => {
    const revoked = await new ApiKeys((await db()).db).revoke(options.workspace, options.key);
    printResult(outputOf(options), { key: revoked }, `Key ${revoked.id} is ${revoked.status}`);
  });
}
