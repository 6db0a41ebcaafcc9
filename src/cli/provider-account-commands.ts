import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import type { UpstreamProviderName } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { ProviderAccounts } from '../voices/provider-accounts.ts';
import { json, outputOf, providerOption, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

/** `awp provider-account add|list|remove`: a workspace's own upstream credentials. */
export function registerProviderAccountCommands(
  program: Command,
  db: () => Promise<DatabaseHandle>,
): void {
  const providerAccounts = async (): Promise<ProviderAccounts> =>
    new ProviderAccounts((await db()).db, secretBox());
  const providerAccount = program
    .command('provider-account')
    .description('a workspace’s own credentials at upstream voice providers');
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
}

function secretBox(): SecretBox {
  const config = loadConfig();
  return SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR });
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
