import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { serviceEnv } from '../../helpers/server.ts';
import { runAwp } from '../../helpers/upstream.ts';

interface AgentJson {
  id: string;
  slug: string;
  voice_id: string | null;
  llm_provider: string;
  llm_model: string;
  thinking_level: string;
  memory_enabled: boolean;
  recording_enabled: boolean;
  display_name: string;
  instructions: string;
  character_card: { data: Record<string, unknown> };
  draft_revision: { version: number };
  active_publication: { version: number } | null;
}

interface CliBody {
  id: string;
  agent: AgentJson;
  agents: AgentJson[];
  workspace: { capabilities: string[] };
  error: { code: string; detail: string };
}

// Each command is a process start (tsx transpiles on every start: about 1.7 s on a cold CI
// machine), and two tests run six or seven of them.
const SPAWNING_TEST_TIMEOUT_MS = 90_000;

describeEachDialect('operator agent commands on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let ws: SeededWorkspace;
  let env: Record<string, string>;

  const awpJson = (args: string[]) => {
    const result = runAwp(env, [...args, '--json']);
    expect(result.stderr).toBe('');
    return { status: result.status, body: JSON.parse(result.stdout) as CliBody };
  };
  const scope = () => ['--workspace', ws.workspaceId, '--environment', 'production'];

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle, { capabilities: ['tts'] });
    env = serviceEnv(database, LLM_ENV);
  });

  it('enables the agents capability', () => {
    const { status, body } = awpJson([
      'capability',
      'enable',
      '--workspace',
      ws.workspaceId,
      '--capability',
      'agents',
    ]);
    expect(status).toBe(0);
    expect(body.workspace.capabilities).toContain('agents');
  });

  it(
    'creates, shows, publishes and lists Agents',
    () => {
      const created = awpJson([
        'agent',
        'create',
        ...scope(),
        '--slug',
        'concierge',
        '--name',
        'Clara',
        '--instructions',
        'Greet guests.',
        '--voice',
        NATIVE_VOICE,
        '--llm-provider',
        'anthropic',
        '--llm-model',
        'claude-haiku-4-5',
        '--thinking-level',
        'low',
        '--memory',
        '--record-sessions',
      ]);
      expect(created.status).toBe(0);
      expect(created.body.agent).toMatchObject({
        id: created.body.id,
        slug: 'concierge',
        display_name: 'Clara',
        instructions: 'Greet guests.',
        voice_id: NATIVE_VOICE,
        llm_provider: 'anthropic',
        llm_model: 'claude-haiku-4-5',
        thinking_level: 'low',
        memory_enabled: true,
        recording_enabled: true,
        active_publication: null,
      });

      const shown = awpJson(['agent', 'show', ...scope(), '--agent', created.body.id]);
      expect(shown.body.agent).toEqual(created.body.agent);

      const published = awpJson(['agent', 'publish', ...scope(), '--agent', created.body.id]);
      expect(published.status).toBe(0);
      expect(published.body.agent.active_publication?.version).toBe(1);

      // The operator list shows every Agent, voiceless ones too.
      const voiceless = awpJson(['agent', 'create', ...scope(), '--slug', 'draft-only']);
      expect(voiceless.body.agent.voice_id).toBeNull();
      expect(voiceless.body.agent.recording_enabled).toBe(false);
      const listed = awpJson(['agent', 'list', ...scope()]);
      expect(listed.body.agents.map((a) => a.slug)).toEqual(['concierge', 'draft-only']);

      const text = runAwp(env, ['agent', 'list', ...scope()]);
      expect(text.status).toBe(0);
      expect(text.stdout).toContain(
        `${created.body.id}  concierge  draft v1  published v1  voice ${NATIVE_VOICE}  anthropic/claude-haiku-4-5`,
      );
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );

  it('creates an Agent from a card file', () => {
    const file = path.join(database.dataDir, 'card.json');
    writeFileSync(
      file,
      JSON.stringify({
        spec: 'chara_card_v2',
        spec_version: '2.0',
        data: { name: 'Old Tom', system_prompt: 'Speak like a sailor.', tags: ['sea'] },
      }),
    );
    const created = awpJson(['agent', 'create', ...scope(), '--slug', 'sailor', '--card', file]);
    expect(created.status).toBe(0);
    expect(created.body.agent.character_card.data).toMatchObject({
      name: 'Old Tom',
      system_prompt: 'Speak like a sailor.',
      tags: ['sea'],
    });
  });

  it(
    'reports the API’s errors with their codes',
    () => {
      const cases: [string[], string][] = [
        [['agent', 'create', ...scope(), '--slug', 'concierge'], 'conflict'],
        [
          ['agent', 'create', ...scope(), '--slug', 'x', '--voice', 'voice_nope'],
          'voice_not_found',
        ],
        [
          ['agent', 'create', ...scope(), '--slug', 'y', '--llm-provider', 'mistral'],
          'invalid_request',
        ],
        [
          ['agent', 'create', ...scope(), '--slug', 'z', '--card', '/nonexistent.json'],
          'invalid_request',
        ],
        [
          ['agent', 'show', ...scope(), '--agent', '01a20000-0000-7000-8000-000000000000'],
          'not_found',
        ],
      ];
      for (const [args, code] of cases) {
        const { status, body } = awpJson(args);
        expect(status, args.join(' ')).toBe(1);
        expect(body.error.code, args.join(' ')).toBe(code);
      }
      const voiceless = awpJson(['agent', 'list', ...scope()]).body.agents.find(
        (a) => a.slug === 'draft-only',
      );
      expect(
        awpJson(['agent', 'publish', ...scope(), '--agent', voiceless?.id ?? '']).body.error.code,
      ).toBe('agent_not_api_ready');
    },
    SPAWNING_TEST_TIMEOUT_MS,
  );
});
