import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ApiKeys } from '../auth/api-keys.ts';
import { ConfigError, ENVIRONMENTS, loadConfig } from '../config.ts';
import { type DatabaseHandle, openDatabase } from '../db/connect.ts';
import type { Role } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { CAPABILITIES, type Capability } from '../workspaces/capabilities.ts';
import { Members, ROLES } from '../workspaces/members.ts';
import { Workspaces } from '../workspaces/workspaces.ts';
import { type Output, printResult } from './output.ts';

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
    database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  }
  return database;
}

function json(command: Command): Command {
  return command.option('--json', 'print one JSON object on stdout (for scripts)');
}

function outputOf(options: { json?: boolean }): Output {
  return options.json ? 'json' : 'text';
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0');
  return n;
}

const workspaceOption = () => new Option('--workspace <id>', 'workspace id').makeOptionMandatory();

// workspace
const workspace = program.command('workspace').description('create and change workspaces');
json(
  workspace
    .command('create')
    .description('create a workspace (active, no capabilities, billing not provisioned)')
    .requiredOption('--name <name>', 'display name')
    .option('--capabilities <list>', `comma-separated: ${CAPABILITIES.join(', ')}`)
    .option('--provision', 'also provision the billing account')
    .option('--credits <n>', 'starting credit balance', nonNegativeNumber),
).action(async (options) => {
  const capabilities = parseCapabilities(options.capabilities);
  const created = await new Workspaces((await db()).db).create({
    name: options.name,
    capabilities,
    billingProvisioned: Boolean(options.provision),
    credits: options.credits ?? 0,
  });
  printResult(
    outputOf(options),
    { id: created.id, workspace: created },
    `Created workspace ${created.id}`,
  );
});
json(workspace.command('list').description('list workspaces')).action(async (options) => {
  const workspaces = await new Workspaces((await db()).db).list();
  printResult(
    outputOf(options),
    { workspaces },
    workspaces.map((w) => `${w.id}  ${w.status}  ${w.name}`).join('\n') || 'No workspaces.',
  );
});
json(
  workspace.command('show').description('show one workspace').addOption(workspaceOption()),
).action(async (options) => {
  const found = await new Workspaces((await db()).db).get(options.workspace);
  printResult(outputOf(options), { workspace: found }, JSON.stringify(found, null, 2));
});
for (const [name, status] of [
  ['suspend', 'suspended'],
  ['resume', 'active'],
] as const) {
  json(
    workspace
      .command(name)
      .description(name === 'suspend' ? 'suspend: every request is refused' : 'lift a suspension')
      .addOption(workspaceOption()),
  ).action(async (options) => {
    const updated = await new Workspaces((await db()).db).setStatus(options.workspace, status);
    printResult(outputOf(options), { workspace: updated }, `Workspace ${updated.id} is ${status}`);
  });
}

// billing
const billing = program.command('billing').description('billing accounts');
json(
  billing
    .command('provision')
    .description('provision the workspace billing account')
    .addOption(workspaceOption()),
).action(async (options) => {
  const updated = await new Workspaces((await db()).db).provisionBilling(options.workspace);
  printResult(outputOf(options), { workspace: updated }, `Billing provisioned for ${updated.id}`);
});

// credit
const credit = program.command('credit').description('credit balances (1,000 credits = 1 USD)');
json(
  credit
    .command('set')
    .description('set the credit balance')
    .addOption(workspaceOption())
    .requiredOption('--credits <n>', 'new balance in credits', nonNegativeNumber),
).action(async (options) => {
  const updated = await new Workspaces((await db()).db).setCredits(
    options.workspace,
    options.credits,
  );
  printResult(
    outputOf(options),
    { workspace: updated },
    `Balance of ${updated.id}: ${updated.credits} credits`,
  );
});

// capability
const capability = program.command('capability').description('products enabled per workspace');
for (const name of ['enable', 'disable'] as const) {
  json(
    capability
      .command(name)
      .description(`${name} a product for a workspace`)
      .addOption(workspaceOption())
      .addOption(
        new Option('--capability <name>', 'product').choices(CAPABILITIES).makeOptionMandatory(),
      ),
  ).action(async (options) => {
    const updated = await new Workspaces((await db()).db).setCapability(
      options.workspace,
      options.capability as Capability,
      name === 'enable',
    );
    printResult(
      outputOf(options),
      { workspace: updated },
      `Capabilities of ${updated.id}: ${updated.capabilities.join(', ') || '(none)'}`,
    );
  });
}

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

// key
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

function parseCapabilities(list: string | undefined): Capability[] {
  if (!list) return [];
  return list.split(',').map((value) => {
    const trimmed = value.trim();
    if (!(CAPABILITIES as readonly string[]).includes(trimmed)) {
      throw new ApiError('invalid_request', `Unknown capability "${trimmed}".`);
    }
    return trimmed as Capability;
  });
}

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
