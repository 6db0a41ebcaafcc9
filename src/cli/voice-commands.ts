import type { Command } from 'commander';
import type { DatabaseHandle } from '../db/connect.ts';
import type { UpstreamProviderName } from '../db/schema.ts';
import { type StoredVoice, VoiceStore } from '../voices/voice-store.ts';
import { environmentOption, json, outputOf, providerOption, workspaceOption } from './options.ts';
import { printResult } from './output.ts';
import { registerVoiceCloneCommands } from './voice-clone-commands.ts';

/** `awp voice import|list` and the cloning commands under `awp voice`. */
export function registerVoiceCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
  const voice = program.command('voice').description('workspace voices');
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
    const voices = await new VoiceStore((await db()).db).list(
      options.workspace,
      options.environment,
    );
    printResult(
      outputOf(options),
      { voices },
      voices.map(describeVoice).join('\n') || 'No voices.',
    );
  });

  registerVoiceCloneCommands(voice, db);
}

function describeVoice(v: StoredVoice): string {
  const routes = v.routes.map(
    (r) =>
      `    ${r.id}  ${r.provider}/${r.model}  ${r.state}${r.enabled ? '' : ' (disabled)'}${r.id === v.defaultRouteId ? ' default' : ''}`,
  );
  return [`${v.id}  ${v.name}${v.nsfw ? ' (nsfw)' : ''}`, ...routes].join('\n');
}
