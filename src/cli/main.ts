import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadConfig } from '../app/config.ts';
import { type DatabaseHandle, databaseOptions, openDatabase } from '../db/connect.ts';
import type { Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { Members, ROLES } from '../workspaces/members.ts';
import { registerAgentCommands } from './agent-commands.ts';
import { registerCreditCommands } from './credit-commands.ts';
import { registerKeyCommands } from './key-commands.ts';
import { registerMemberPasswordCommand } from './member-commands.ts';
import { json, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';
import { registerProviderAccountCommands } from './provider-account-commands.ts';
import { registerStorageCommands } from './storage-commands.ts';
import { registerVoiceCommands } from './voice-commands.ts';
import { registerWebhookCommands } from './webhook-commands.ts';
import { registerWorkspaceCommands } from './workspace-commands.ts';

/**
 * `awp`: operator tool for bootstrapping and administration. It works on the same
 * DATA_DIR / DATABASE_URL as a running service.
 */
const program = new Command('awp')
  .description('Operate a speech and agents platform deployment (workspaces, keys, credit).')
  .showHelpAfterError()
  .exitOverride();

let database: DatabaseHandle | undefined;

async function db(): Promise<DatabaseHandle> {
  if (!database) {
    const config = loadConfig();
    database = await openDatabase(databaseOptions(config));
  }
  return database;
}

registerWorkspaceCommands(program, db);

// member
const member = program.command('member').description('workspace members and roles');
json(
  member
    .command('add')
    .description('add a user to a workspace, or change their role')
    .addOption(workspaceOption())
    .requiredOption('--email <email>', 'user email')
    .addOption(new Option('--role <role>', 'role').choices(ROLES).makeOptionMandatory()),
).action(async (options) => {
  const added = await new Members((await db()).db).add(
    options.workspace,
    options.email,
    options.role as Role,
  );
  printResult(outputOf(options), { member: added }, `${added.email} is ${added.role}`);
});
json(member.command('list').description('list members').addOption(workspaceOption())).action(
  async (options) => {
    const members = await new Members((await db()).db).list(options.workspace);
    printResult(
      outputOf(options),
      { members },
      members.map((m) => `${m.email}  ${m.role}`).join('\n') || 'No members.',
    );
  },
);
registerMemberPasswordCommand(member, db);

registerKeyCommands(program, db);
registerProviderAccountCommands(program, db);
registerWebhookCommands(program, db);
registerVoiceCommands(program, db);
registerCreditCommands(program, db);
registerAgentCommands(program, db);
registerStorageCommands(program);

async function run(): Promise<number> {
  const wantsJson = process.argv.includes('--json');
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; usage errors were already printed by commander.
      return error.exitCode;
    }
    const code =
      error instanceof ApiError
        ? error.code
        : error instanceof ConfigError
          ? 'configuration'
          : 'internal_error';
    const detail = error instanceof Error ? error.message : String(error);
    if (wantsJson) process.stdout.write(`${JSON.stringify({ error: { code, detail } })}\n`);
    else process.stderr.write(`error: ${detail}\n`);
    return 1;
  } finally {
    await database?.close();
  }
}

process.exitCode = await run();
