import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ApiKeys } from '../auth/api-keys.ts';
import { ConfigError, ENVIRONMENTS, loadConfig } from '../config.ts';
import { type DatabaseHandle, databaseOptions, openDatabase } from '../db/connect.ts';
import type { Role, UpstreamProviderName } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { UPSTREAM_PROVIDERS } from '../providers/upstream-registry.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { ProviderAccounts } from '../voices/provider-accounts.ts';
import { type StoredVoice, VoiceStore } from '../voices/voice-store.ts';
import { CAPABILITIES, type Capability } from '../workspaces/capabilities.ts';
import { Members, ROLES } from '../workspaces/members.ts';
import { Workspaces } from '../workspaces/workspaces.ts';
import { registerAgentCommands } from './agent-commands.ts';
import { registerCreditCommands } from './credit-commands.ts';
import { registerMemberPasswordCommand } from './member-commands.ts';
import { type Output, printResult } from './output.ts';
import { registerVoiceCloneCommands } from './voice-clone-commands.ts';

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

function secretBox(): SecretBox {
  const config = loadConfig();
  return SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR });
}

async function providerAccounts(): Promise<ProviderAccounts> {
  return new ProviderAccounts((await db()).db, secretBox());
}

/** Reads a secret from the named environment variable or from standard input, never argv. */
async function readSecret(envName: string | undefined): Promise<string> {
  if (envName !== undefined) {
    const value = process.env[envName];
    if (!value) throw new ApiError('invalid_request', `Environment variable ${envName} is empty.`);
    return value;
  }
  if (process.stdin.isTTY) {
    throw new ApiError(
      'invalid_request',
      'Pipe the API key on standard input, or name a variable with --api-key-env.',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
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
registerMemberPasswordCommand(member, db);

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

// provider-account
const providerAccount = program
  .command('provider-account')
  .description('a workspace’s own credentials at upstream voice providers');
const providerOption = () =>
  new Option('--provider <name>', 'upstream provider')
    .choices(UPSTREAM_PROVIDERS)
    .makeOptionMandatory();
json(
  providerAccount
    .command('add')
    .description('store an API key (read from stdin or --api-key-env; sealed at rest)')
    .addOption(workspaceOption())
    .addOption(providerOption())
    .requiredOption('--label <label>', 'what the account is')
    .option('--api-key-env <name>', 'read the key from this environment variable'),
).action(async (options) => {
  const apiKey = await readSecret(options.apiKeyEnv);
  const account = await (await providerAccounts()).create({
    workspaceId: options.workspace,
    provider: options.provider as UpstreamProviderName,
    label: options.label,
    apiKey,
  });
  printResult(
    outputOf(options),
    { id: account.id, account },
    `Added ${account.provider} account ${account.id} (key …${account.keyLast4})`,
  );
});
json(
  providerAccount
    .command('list')
    .description('list provider accounts')
    .addOption(workspaceOption()),
).action(async (options) => {
  const accounts = await (await providerAccounts()).list(options.workspace);
  printResult(
    outputOf(options),
    { accounts },
    accounts.map((a) => `${a.id}  ${a.provider}  …${a.keyLast4}  ${a.label}`).join('\n') ||
      'No provider accounts.',
  );
});
json(
  providerAccount
    .command('remove')
    .description('remove a provider account no voice route uses')
    .addOption(workspaceOption())
    .requiredOption('--account <id>', 'provider account id (pa_...)'),
).action(async (options) => {
  await (await providerAccounts()).remove(options.workspace, options.account);
  printResult(outputOf(options), { removed: options.account }, `Removed ${options.account}`);
});

// voice
const voice = program.command('voice').description('workspace voices');
const environmentOption = () =>
  new Option('--environment <env>', 'environment').choices(ENVIRONMENTS).makeOptionMandatory();
json(
  voice
    .command('import')
    .description('import an existing provider voice as a catalog voice with one Ready route')
    .addOption(workspaceOption())
    .addOption(environmentOption())
    .addOption(providerOption())
    .requiredOption('--provider-voice-id <id>', 'the voice id at the provider')
    .requiredOption('--model <model>', 'provider model of the route')
    .requiredOption('--name <name>', 'display name in the catalog')
    .option('--nsfw', 'the voice is meant for adult content')
    .option(
      '--provider-account <id>',
      'workspace provider account (default: the only one, else the deployment key)',
    ),
).action(async (options) => {
  const imported = await new VoiceStore((await db()).db).importVoice({
    workspaceId: options.workspace,
    environment: options.environment,
    provider: options.provider as UpstreamProviderName,
    providerVoiceId: options.providerVoiceId,
    model: options.model,
    name: options.name,
    nsfw: Boolean(options.nsfw),
    providerAccountId: options.providerAccount,
  });
  printResult(
    outputOf(options),
    { id: imported.id, voice: imported },
    `Imported ${imported.id} (${imported.name}) in ${imported.environment}`,
  );
});
json(
  voice
    .command('list')
    .description('list workspace voices and their routes')
    .addOption(workspaceOption())
    .addOption(environmentOption()),
).action(async (options) => {
  const voices = await new VoiceStore((await db()).db).list(options.workspace, options.environment);
  printResult(outputOf(options), { voices }, voices.map(describeVoice).join('\n') || 'No voices.');
});

registerVoiceCloneCommands(voice, db);

function describeVoice(v: StoredVoice): string {
  const routes = v.routes.map(
    (r) =>
      `    ${r.id}  ${r.provider}/${r.model}  ${r.state}${r.enabled ? '' : ' (disabled)'}${r.id === v.defaultRouteId ? ' default' : ''}`,
  );
  return [`${v.id}  ${v.name}${v.nsfw ? ' (nsfw)' : ''}`, ...routes].join('\n');
}

registerCreditCommands(program, db);
registerAgentCommands(program, db);

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
