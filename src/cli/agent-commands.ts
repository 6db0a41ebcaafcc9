import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { AgentStore } from '../agents/agent-store.ts';
import { type AgentInput, Agents } from '../agents/agents.ts';
import { cardFromJsonFile, cardFromPng } from '../agents/card-files.ts';
import { agentBody } from '../agents/schemas.ts';
import { ENVIRONMENTS, loadConfig } from '../app/config.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import { ApiError } from '../errors.ts';
import { THINKING_LEVELS, type ThinkingLevel } from '../llm/provider.ts';
import { llmCatalogFromConfig } from '../llm/registry.ts';
import { createLogger } from '../observability/logger.ts';
import { PublicVoices } from '../voices/public-voices.ts';
import { VoiceStore } from '../voices/voice-store.ts';
import { type Output, printResult } from './output.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** What the `awp agent` subcommands share: the service, options, scope and output. */
function agentCommandKit(db: () => Promise<DatabaseHandle>) {
  return {
    agents: async () => {
      const { db: kysely } = await db();
      const llm = llmCatalogFromConfig(loadConfig(), createLogger('error', 'awp'));
      return new Agents(new AgentStore(kysely), new PublicVoices(new VoiceStore(kysely)), llm);
    },
    scoped: (command: Command) =>
      command
        .requiredOption('--workspace <id>', 'workspace id')
        .addOption(
          new Option('--environment <env>', 'environment')
            .choices(ENVIRONMENTS)
            .makeOptionMandatory(),
        )
        .option('--json', 'print one JSON object on stdout (for scripts)'),
    scopeOf: (options: { workspace: string; environment: string }): TenantScope => ({
      workspaceId: options.workspace,
      environment: options.environment as TenantScope['environment'],
    }),
    outputOf: (options: { json?: boolean }): Output => (options.json ? 'json' : 'text'),
    line: (a: ReturnType<typeof agentBody>) =>
      `${a.id}  ${a.slug}  draft v${a.draft_revision.version}  ${
        a.active_publication ? `published v${a.active_publication.version}` : 'unpublished'
      }  voice ${a.voice_id ?? '(none)'}  ${a.llm_provider ?? '-'}/${a.llm_model ?? '-'}`,
  };
}

type AgentCommandKit = ReturnType<typeof agentCommandKit>;

/** `awp agent list|show|create|publish`: managed Agents, with the API's own rules. */
export function registerAgentCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
  const kit = agentCommandKit(db);
  const agent = program.command('agent').description('managed Agents');
  addListCommand(agent, kit);
  addShowCommand(agent, kit);
  addCreateCommand(agent, kit);
  addPublishCommand(agent, kit);
}

function addListCommand(agent: Command, kit: AgentCommandKit): void {
  const { scoped, scopeOf, outputOf, line } = kit;
  scoped(agent.command('list').description('list every Agent, API-ready or not')).action(
    async (options) => {
      const service = await kit.agents();
      const scope = scopeOf(options);
      const all = [];
      let afterId: string | undefined;
      for (;;) {
        const page = await service.store.list(scope.workspaceId, scope.environment, {
          afterId,
          limit: 100,
        });
        all.push(...page.map(agentBody));
        if (page.length < 100) break;
        afterId = page.at(-1)?.id;
      }
      printResult(outputOf(options), { agents: all }, all.map(line).join('\n') || 'No agents.');
    },
  );
}

function addShowCommand(agent: Command, kit: AgentCommandKit): void {
  const { scoped, scopeOf, outputOf } = kit;
  scoped(
    agent.command('show').description('show one Agent').requiredOption('--agent <id>', 'Agent id'),
  ).action(async (options) => {
    const found = agentBody(await (await kit.agents()).get(scopeOf(options), options.agent));
    printResult(outputOf(options), { agent: found }, JSON.stringify(found, null, 2));
  });
}

function addCreateCommand(agent: Command, kit: AgentCommandKit): void {
  const { scoped, scopeOf, outputOf, line } = kit;
  scoped(
    agent
      .command('create')
      .description('create an Agent (draft revision 1)')
      .requiredOption('--slug <slug>', 'unique name in the workspace and environment')
      .option('--name <name>', 'character name (card data.name)')
      .option('--instructions <text>', 'system prompt (card data.system_prompt)')
      .option('--persona <text>', 'persona (card data.description)')
      .option('--card <file>', 'character card file: JSON (V3, V2, V1) or PNG card image')
      .option('--voice <id>', 'public voice id')
      .option('--avatar <id>', 'avatar id (see GET /v1/avatars)')
      .option('--llm-provider <name>', 'language-model provider')
      .option('--llm-model <name>', 'language model')
      .addOption(new Option('--thinking-level <level>', 'reasoning level').choices(THINKING_LEVELS))
      .option('--web-search', 'enable web search')
      .option('--memory', 'enable conversation memory (tokens then need end_user_id)')
      .option('--calendar', 'enable the calendar (tokens then need end_user_id)')
      .option('--documents', 'enable documents (tokens then need end_user_id)')
      .option('--language <tag>', "BCP 47 tag of the language the Agent's users speak (e.g. es-MX)")
      .option('--record-sessions', 'record each live session (stereo Ogg Opus)'),
  ).action(async (options) => {
    const input: AgentInput = {
      slug: options.slug,
      display_name: options.name,
      instructions: options.instructions,
      persona: options.persona,
      voice_id: options.voice,
      avatar_id: options.avatar,
      llm_provider: options.llmProvider,
      llm_model: options.llmModel,
      thinking_level: options.thinkingLevel as ThinkingLevel | undefined,
      web_search_enabled: options.webSearch ? true : undefined,
      memory_enabled: options.memory ? true : undefined,
      calendar_enabled: options.calendar ? true : undefined,
      documents_enabled: options.documents ? true : undefined,
      language: options.language,
      recording_enabled: options.recordSessions ? true : undefined,
      ...(options.card ? { character_card: readCard(options.card) } : {}),
    };
    const created = agentBody(await (await kit.agents()).create(scopeOf(options), input));
    printResult(outputOf(options), { id: created.id, agent: created }, `Created ${line(created)}`);
  });
}

function addPublishCommand(agent: Command, kit: AgentCommandKit): void {
  const { scoped, scopeOf, outputOf, line } = kit;
  scoped(
    agent
      .command('publish')
      .description('publish the current draft; sessions run it from now on')
      .requiredOption('--agent <id>', 'Agent id'),
  ).action(async (options) => {
    const published = agentBody(
      await (await kit.agents()).publish(scopeOf(options), options.agent),
    );
    printResult(outputOf(options), { agent: published }, `Published ${line(published)}`);
  });
}

function readCard(file: string) {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new ApiError('invalid_request', `Cannot read the card file ${file}.`);
  }
  return bytes.subarray(0, 4).equals(PNG_SIGNATURE) ? cardFromPng(bytes) : cardFromJsonFile(bytes);
}
