import { type Command, Option } from 'commander';
import { loadConfig } from '../app/config.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import { openAudioStores } from '../storage/stores.ts';
import { CAPABILITIES, type Capability } from '../workspaces/capabilities.ts';
import { eraseWorkspace } from '../workspaces/workspace-erasure.ts';
import { Workspaces } from '../workspaces/workspaces.ts';
import { json, nonNegativeNumber, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

/** `awp workspace …`, `awp billing provision` and `awp capability enable|disable`. */
export function registerWorkspaceCommands(
  program: Command,
  db: () => Promise<DatabaseHandle>,
): void {
  const workspace = program.command('workspace').description('create and change workspaces');
  addWorkspaceCreateAndList(workspace, db);
  addWorkspaceChanges(workspace, db);
  addBillingCommands(program, db);
  addCapabilityCommands(program, db);
}

/** `awp workspace create|list`. */
function addWorkspaceCreateAndList(workspace: Command, db: () => Promise<DatabaseHandle>): void {
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
}

/** `awp workspace` subcommands that change one workspace. */
function addWorkspaceChanges(workspace: Command, db: () => Promise<DatabaseHandle>): void {
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
        .description(
          name === 'suspend'
            ? 'suspend: every request is refused, running work ends'
            : 'lift a suspension',
        )
        .addOption(workspaceOption()),
    ).action(async (options) => {
      const updated = await new Workspaces((await db()).db).setStatus(options.workspace, status);
      printResult(
        outputOf(options),
        { workspace: updated },
        `Workspace ${updated.id} is ${status}`,
      );
    });
  }

  json(
    workspace
      .command('delete')
      .description(
        'erase a workspace: its stored audio, recordings and voice samples, then every row of it',
      )
      .addOption(workspaceOption())
      .requiredOption('--yes', 'confirm: nothing of the workspace can be recovered'),
  ).action(async (options) => {
    const config = loadConfig();
    const erased = await eraseWorkspace(
      (await db()).db,
      Object.values(openAudioStores(config)),
      options.workspace,
    );
    printResult(
      outputOf(options),
      { workspace_id: erased.workspaceId, objects_deleted: erased.objects },
      `Workspace ${erased.workspaceId} erased (${erased.objects} stored objects deleted)`,
    );
  });
}

/** `awp billing provision`. */
function addBillingCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
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
}

/** `awp capability enable|disable`. */
function addCapabilityCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
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
}

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
