import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../app/config.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import type { VoiceRouteProvider } from '../db/schema.ts';
import { ApiError, unsupportedMediaTypeError } from '../errors.ts';
import { openVoiceCloning } from '../jobs/voice-cloning.ts';
import { createLogger } from '../observability/logger.ts';
import { VENDOR_KINDS } from '../tts/providers/vendors.ts';
import type { VoiceCloning } from '../voices/cloning/service.ts';
import type { CloneTarget, SampleInput, VoiceDetails } from '../voices/cloning/types.ts';
import { environmentOption, json, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

const PROVIDERS: readonly VoiceRouteProvider[] = [...VENDOR_KINDS, 'native'];

/** Content types by file extension of the recordings the tool uploads. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.flac': 'audio/flac',
  '.webm': 'audio/webm',
  '.m4a': 'audio/mp4',
};

const collect = (value: string, previous: string[] = []) => [...previous, value];
const scoped = (command: Command) =>
  command.addOption(workspaceOption()).addOption(environmentOption());

/**
 * `awp voice clone`, `awp voice sample add`, `awp voice route ...`: the cloning service of
 * src/voices/cloning/ for operators. Clone attempts are queued on Redis; the jobs process
 * (or the api in single-node mode) runs them, so the commands return at once with the
 * routes in Cloning.
 */
export function registerVoiceCloneCommands(
  voice: Command,
  db: () => Promise<DatabaseHandle>,
): void {
  addCloneCommand(voice, db);
  addSampleCommands(voice, db);
  addRouteCommands(voice, db);
}

/** Runs `use` with the cloning service, closing its queue connection after. */
async function withCloning<T>(
  db: () => Promise<DatabaseHandle>,
  use: (cloning: VoiceCloning) => Promise<T>,
): Promise<T> {
  const opened = openVoiceCloning({
    config: loadConfig(),
    db: (await db()).db,
    logger: createLogger('error', 'awp'),
  });
  try {
    return await use(opened.cloning);
  } finally {
    await opened.close();
  }
}

/** `awp voice clone`. */
function addCloneCommand(voice: Command, db: () => Promise<DatabaseHandle>): void {
  json(
    scoped(
      voice
        .command('clone')
        .description(
          'clone a voice to providers: a new voice from recordings (--name, --sample), or an existing one (--voice) to more providers or to refresh after new recordings',
        ),
    )
      .option('--voice <id>', 'an existing voice (omit to create one)')
      .option('--name <name>', 'display name of a new voice')
      .option('--sample <file>', 'a recording (repeat; one --transcript per --sample)', collect)
      .option('--transcript <text>', 'exact transcript of the matching --sample', collect)
      .option('--language <tag>', 'spoken language (BCP 47) of the recordings', 'en-US')
      .option('--confirm-permission', 'the speaker gave permission to clone their voice')
      .option('--nsfw', 'the voice is meant for adult content')
      .requiredOption(
        '--provider <name>',
        `provider to clone to, repeat for several: ${PROVIDERS.join(', ')}`,
        collect,
      )
      .option('--model <provider=model>', 'a model other than the recommended one', collect)
      .option('--provider-account <provider=id>', 'workspace provider account', collect)
      .option('--actor <who>', 'operator recorded in History', 'operator-tool'),
  ).action(async (options) => {
    const targets = cloneTargets(options.provider, options.model, options.providerAccount);
    const details = await withCloning(db, async (cloning) => {
      if (options.voice !== undefined) {
        if (options.sample !== undefined) {
          throw new ApiError('invalid_request', 'Add recordings with `voice sample add`.');
        }
        return cloning.cloneToProviders({
          workspaceId: options.workspace,
          environment: options.environment,
          voiceId: options.voice,
          targets,
          requestedBy: options.actor,
        });
      }
      if (options.name === undefined) {
        throw new ApiError('invalid_request', 'Name the new voice with --name, or pass --voice.');
      }
      const files: string[] = options.sample ?? [];
      const transcripts: string[] = options.transcript ?? [];
      if (files.length !== transcripts.length) {
        throw new ApiError('invalid_request', 'Give one --transcript for every --sample.');
      }
      const samples = await Promise.all(
        files.map((file, index) => readSample(file, transcripts[index] ?? '', options.language)),
      );
      return cloning.createAndClone({
        workspaceId: options.workspace,
        environment: options.environment,
        name: options.name,
        nsfw: Boolean(options.nsfw),
        samples,
        permissionConfirmed: Boolean(options.confirmPermission),
        targets,
        actor: options.actor,
      });
    });
    printResult(outputOf(options), { id: details.voice.id, ...details }, describe(details));
  });
}

/** `awp voice sample add`. */
function addSampleCommands(voice: Command, db: () => Promise<DatabaseHandle>): void {
  const sample = voice.command('sample').description('recordings of a voice');
  json(
    scoped(
      sample.command('add').description('add a recording (ready routes become Update available)'),
    )
      .requiredOption('--voice <id>', 'voice id')
      .requiredOption('--file <file>', 'the recording')
      .requiredOption('--transcript <text>', 'exact transcript')
      .option('--language <tag>', 'spoken language (BCP 47)', 'en-US')
      .option('--confirm-permission', 'the speaker gave permission to clone their voice')
      .option('--actor <who>', 'operator recorded with the sample', 'operator-tool'),
  ).action(async (options) => {
    const added = await withCloning(db, async (cloning) =>
      cloning.addSample({
        workspaceId: options.workspace,
        environment: options.environment,
        voiceId: options.voice,
        sample: await readSample(options.file, options.transcript, options.language),
        permissionConfirmed: Boolean(options.confirmPermission),
        actor: options.actor,
      }),
    );
    printResult(outputOf(options), { sample: added }, `Added ${added.id} to ${added.voiceId}`);
  });
}

/** `awp voice route ...`. */
function addRouteCommands(voice: Command, db: () => Promise<DatabaseHandle>): void {
  const route = voice.command('route').description('routes of a voice and their states');
  json(
    scoped(
      route.command('list').description('routes, samples and History of a voice'),
    ).requiredOption('--voice <id>', 'voice id'),
  ).action(async (options) => {
    const details = await withCloning(db, (cloning) =>
      cloning.details(options.workspace, options.environment, options.voice),
    );
    printResult(outputOf(options), details, describe(details));
  });
  json(
    scoped(route.command('retry').description('Try again: resubmit every failed route'))
      .requiredOption('--voice <id>', 'voice id')
      .option('--actor <who>', 'operator recorded in History', 'operator-tool'),
  ).action(async (options) => {
    const details = await withCloning(db, (cloning) =>
      cloning.retryFailed({
        workspaceId: options.workspace,
        environment: options.environment,
        voiceId: options.voice,
        requestedBy: options.actor,
      }),
    );
    printResult(outputOf(options), details, describe(details));
  });
  const routeActions = {
    enable: (c: VoiceCloning, s: Scope, id: string) => c.routes.setRouteEnabled(s, id, true),
    disable: (c: VoiceCloning, s: Scope, id: string) => c.routes.setRouteEnabled(s, id, false),
    default: (c: VoiceCloning, s: Scope, id: string) => c.routes.setDefaultRoute(s, id),
    unblock: (c: VoiceCloning, s: Scope, id: string) => c.routes.unblockRoute(s, id),
  } as const;
  const descriptions: Record<keyof typeof routeActions, string> = {
    enable: 'show a hidden route again',
    disable: 'hide a route without deleting it (not the default)',
    default: 'make a Ready route the default (voice_id stays)',
    unblock: 'lift a block',
  };
  for (const [name, act] of Object.entries(routeActions)) {
    json(
      scoped(route.command(name).description(descriptions[name as keyof typeof routeActions]))
        .requiredOption('--voice <id>', 'voice id')
        .requiredOption('--route <id>', 'route id (vr_...)'),
    ).action(async (options) => {
      const updated = await withCloning(db, (cloning) =>
        act(cloning, scopeOf(options), options.route),
      );
      printResult(outputOf(options), { voice: updated }, `${options.route}: ${name} done`);
    });
  }
  json(
    scoped(route.command('block').description('stop a route serving and cloning'))
      .requiredOption('--voice <id>', 'voice id')
      .requiredOption('--route <id>', 'route id (vr_...)')
      .requiredOption('--reason <text>', 'why, shown with the route'),
  ).action(async (options) => {
    const updated = await withCloning(db, (cloning) =>
      cloning.routes.blockRoute(scopeOf(options), options.route, options.reason),
    );
    printResult(outputOf(options), { voice: updated }, `${options.route} is blocked`);
  });
}

type Scope = Parameters<VoiceCloning['routes']['setDefaultRoute']>[0];

function scopeOf(options: { workspace: string; environment: Scope['environment']; voice: string }) {
  return {
    workspaceId: options.workspace,
    environment: options.environment,
    voiceId: options.voice,
  };
}

async function readSample(
  file: string,
  transcript: string,
  language: string,
): Promise<SampleInput> {
  const contentType = CONTENT_TYPES[extname(file).toLowerCase()];
  if (contentType === undefined) {
    throw unsupportedMediaTypeError(
      `${basename(file)}: use one of ${Object.keys(CONTENT_TYPES).join(', ')}.`,
    );
  }
  return {
    fileName: basename(file),
    contentType,
    audio: await readFile(file),
    language,
    transcript,
  };
}

function cloneTargets(
  providers: string[],
  models: string[] = [],
  accounts: string[] = [],
): CloneTarget[] {
  const pairs = (list: string[]) =>
    new Map(
      list.map((entry) => {
        const [provider, value] = entry.split('=', 2);
        if (!provider || !value)
          throw new ApiError('invalid_request', `Expected provider=value, got "${entry}".`);
        return [provider, value] as const;
      }),
    );
  const modelOf = pairs(models);
  const accountOf = pairs(accounts);
  return providers.map((provider) => {
    if (!(PROVIDERS as readonly string[]).includes(provider)) {
      throw new ApiError(
        'invalid_request',
        `Unknown provider "${provider}" (${PROVIDERS.join(', ')}).`,
      );
    }
    return {
      provider: provider as VoiceRouteProvider,
      model: modelOf.get(provider),
      providerAccountId: accountOf.get(provider),
    };
  });
}

function describe(details: VoiceDetails): string {
  const { voice } = details;
  const routes = voice.routes.map(
    (r) =>
      `    ${r.id}  ${r.provider}/${r.model}  ${r.state}${r.enabled ? '' : ' (disabled)'}${r.id === voice.defaultRouteId ? ' default' : ''}${r.failureSummary ? `  ${r.failureSummary}` : ''}`,
  );
  return [`${voice.id}  ${voice.name}  ${details.samples.length} recording(s)`, ...routes].join(
    '\n',
  );
}
