// The server SDK's REST client against the real api: the /v1 routes round trip with their
// documented shapes, and each error code a backend can provoke arrives as its typed class.
import {
  AgentNotApiReadyError,
  AgentNotPublishedError,
  AwpClient,
  type AwpError,
  CapabilityDisabledError,
  ConflictError,
  InsufficientCreditError,
  InvalidRequestError,
  MemoryIdentityRequiredError,
  NotFoundError,
  OrganizationAccountMissingError,
  OrganizationSuspendedError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  SessionTokenAgentMismatchError,
  UnauthorizedError,
  VoiceNotFoundError,
} from '../../../backend-sdk/src/index.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const END_USER = '0f8fad5b-d9cb-469f-a165-70867728950e';
const UNKNOWN_AGENT = '01890a5d-ac96-774b-bcce-b302099a8057';

/** The rejection of `promise`, failing the test when it resolves. */
async function failure(promise: Promise<unknown>): Promise<AwpError> {
  try {
    await promise;
  } catch (error) {
    return error as AwpError;
  }
  throw new Error('expected the call to fail');
}

/** What a caller sees of a typed error. */
const seen = (error: AwpError) => ({
  type: error.constructor.name,
  code: error.code,
  status: error.status,
  retryable: error.retryable,
  hasRequestId: typeof error.requestId === 'string' && error.requestId.length > 0,
});

describeEachDialect('server SDK REST client on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let client: AwpClient;
  let counter = 0;
  const sdk = (apiKey: string, maxAttempts = 3) =>
    new AwpClient({ apiKey, baseUrl: server.url, maxAttempts, retry: { initialDelayMs: 10 } });
  const publishedAgent = async (fields: Record<string, unknown> = {}) => {
    const agent = await client.agents.create({
      slug: `sdk-${++counter}`,
      voice_id: NATIVE_VOICE,
      ...fields,
    });
    await client.agents.publish(agent.id);
    return agent.id;
  };

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      server = await apis.start(database, { env: LLM_ENV });
      client = sdk(ws.productionKey);
    },
    budget({ servers: 1 }),
  );

  it('lists the language models and the speech-to-text engine of the deployment', async () => {
    // LLM_ENV: both vendors with their default model lists, no embedded model.
    const all = ['off', 'low', 'medium', 'high'];
    const models = await client.models.list();
    expect(models).toEqual({
      language_models: [
        { provider: 'openai', model: 'gpt-4.1-mini', thinking_levels: ['off'], tools: true },
        { provider: 'openai', model: 'gpt-4.1', thinking_levels: ['off'], tools: true },
        { provider: 'openai', model: 'o4-mini', thinking_levels: all, tools: true },
        { provider: 'anthropic', model: 'claude-sonnet-4-6', thinking_levels: all, tools: true },
        { provider: 'anthropic', model: 'claude-haiku-4-5', thinking_levels: all, tools: true },
      ],
      speech_to_text: [
        { provider: 'embedded', model: 'whisper-base', streaming: false, interim_results: false },
      ],
    });
  });

  it('lists voices and avatars, and fetches a preview picture', async () => {
    const { voices } = await client.voices.list();
    const native = voices.find((v) => v.id === NATIVE_VOICE);
    expect(native).toMatchObject({
      id: NATIVE_VOICE,
      capabilities: ['tts', 'word_alignment'],
      nsfw: false,
    });
    expect(native?.output_formats).toContain('pcm_24000');
    const { avatars } = await client.avatars.list();
    expect(avatars.length).toBeGreaterThan(0);
    const png = await client.avatars.preview(avatars[0]!.id);
    expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
  });

  it('creates, reads, lists, edits, publishes, exports, imports and deletes an Agent', async () => {
    const created = await client.agents.create({
      slug: 'sdk-crud',
      voice_id: NATIVE_VOICE,
      character_card: { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'Ada' } },
    });
    expect(created).toMatchObject({
      slug: 'sdk-crud',
      voice_id: NATIVE_VOICE,
      display_name: 'Ada',
      draft_revision: { version: 1 },
      active_publication: null,
    });
    expect(await client.agents.get(created.id)).toEqual(created);
    expect((await client.agents.list({ slug: 'sdk-crud' })).agents.map((a) => a.id)).toEqual([
      created.id,
    ]);
    const edited = await client.agents.update(created.id, { instructions: 'Be brief.' });
    expect(edited.character_card.data.system_prompt).toBe('Be brief.');
    expect(edited.draft_revision.version).toBe(2);
    const published = await client.agents.publish(created.id);
    expect(published.active_publication?.revision.version).toBe(2);

    const card = await client.agents.exportCharacterCard(created.id);
    expect(card).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Ada' } });
    const png = await client.agents.exportCharacterCardPng(created.id);
    await client.agents.update(created.id, { display_name: 'Renamed' });
    const imported = await client.agents.importCharacterCard(created.id, png);
    expect(imported.character_card).toEqual(card);
    const fromJson = await client.agents.importCharacterCard(created.id, {
      ...card,
      data: { ...card.data, name: 'Grace' },
    });
    expect(fromJson.display_name).toBe('Grace');

    const seenIds: string[] = [];
    for await (const agent of client.agents.listAll({ limit: 1 })) seenIds.push(agent.id);
    expect(seenIds).toContain(created.id);

    await client.agents.delete(created.id);
    expect(seen(await failure(client.agents.get(created.id)))).toEqual({
      type: 'NotFoundError',
      code: 'not_found',
      status: 404,
      retryable: false,
      hasRequestId: true,
    });
  });

  it('mints stream and Agent session tokens', async () => {
    const stream = await client.tokens.createTtsStreamToken();
    expect(stream.capabilities).toEqual({
      tts_stream: true,
      tts_one_shot: false,
      environment: 'production',
    });
    // Unconfigured, the api names its own port on localhost (PUBLIC_WS_URL sets it).
    expect(stream.websocket_url).toBe(`ws://localhost:${new URL(server.url).port}/v1/tts/stream`);
    expect(Date.parse(stream.expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
    expect((await client.tts.createStreamToken()).token).not.toBe(stream.token);

    const agentId = await publishedAgent({ memory_enabled: true });
    const token = await client.tokens.createAgentSessionToken(agentId, { end_user_id: END_USER });
    expect(token).toMatchObject({
      agent_id: agentId,
      capabilities: { managed_voice_agent: true, transport: 'webrtc' },
    });
    const error = await failure(client.tokens.createAgentSessionToken(agentId));
    expect(error).toBeInstanceOf(MemoryIdentityRequiredError);
    expect(seen(error)).toMatchObject({ code: 'memory_identity_required', status: 400 });
  });

  it('reads the OpenAPI document', async () => {
    const document = await client.openApiDocument();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths as object)).toContain('/v1/agents/{agentId}/session-tokens');
  });

  it('throws the typed error of each code a backend can provoke', async () => {
    const broke = await seedWorkspace(handle, { credits: 0 });
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const suspended = await seedWorkspace(handle, { suspended: true });
    const unbilled = await seedWorkspace(handle, { billingProvisioned: false });
    const agentA = await publishedAgent();
    const agentB = await publishedAgent();
    const draft = await client.agents.create({
      slug: `sdk-draft-${dialect}`,
      voice_id: NATIVE_VOICE,
    });
    const voiceless = await client.agents.create({ slug: `sdk-voiceless-${dialect}` });
    const tokenA = (await client.tokens.createAgentSessionToken(agentA)).token;
    const speak = { text: 'Hello.', voice_id: NATIVE_VOICE, output_format: 'pcm_24000' } as const;

    // Thunks: each call starts only when its turn comes.
    const cases: [string, () => Promise<unknown>, new (...args: never[]) => AwpError, number][] = [
      ['unauthorized', () => sdk('awp_not_a_real_key').voices.list(), UnauthorizedError, 401],
      [
        'insufficient_credit',
        () => sdk(broke.productionKey).tts.synthesize(speak),
        InsufficientCreditError,
        402,
      ],
      [
        'invalid_request',
        () => client.tts.synthesize({ ...speak, text: 'x'.repeat(20_001) }),
        InvalidRequestError,
        400,
      ],
      [
        'voice_not_found',
        () => client.tts.synthesize({ ...speak, voice_id: 'voice_nope' }),
        VoiceNotFoundError,
        404,
      ],
      [
        'capability_disabled',
        () => sdk(ttsOnly.productionKey).agents.list(),
        CapabilityDisabledError,
        403,
      ],
      [
        'organization_suspended',
        () => sdk(suspended.productionKey).voices.list(),
        OrganizationSuspendedError,
        403,
      ],
      [
        'organization_account_missing',
        () => sdk(unbilled.productionKey).voices.list(),
        OrganizationAccountMissingError,
        503,
      ],
      ['agent_not_api_ready', () => client.agents.get(voiceless.id), AgentNotApiReadyError, 409],
      [
        'agent_not_published',
        () => client.tokens.createAgentSessionToken(draft.id),
        AgentNotPublishedError,
        409,
      ],
      ['not_found', () => client.agents.get(UNKNOWN_AGENT), NotFoundError, 404],
      ['conflict', () => client.agents.create({ slug: draft.slug }), ConflictError, 409],
      [
        'session_token_agent_mismatch',
        () => client.agents.startSession(agentB, tokenA),
        SessionTokenAgentMismatchError,
        403,
      ],
      [
        'invalid_request',
        () => client.tts.synthesize({ ...speak, text: 'x'.repeat(600_000) }),
        PayloadTooLargeError,
        413,
      ],
    ];
    for (const [code, call, Type, status] of cases) {
      const error = await failure(call());
      expect(error, code).toBeInstanceOf(Type);
      expect(seen(error), code).toEqual({
        type: Type.name,
        code,
        status,
        retryable: false,
        hasRequestId: true,
      });
    }
  });

  it('retries the retryable 503 of a session start without LiveKit, attempt by attempt', async () => {
    const agentId = await publishedAgent();
    const { token } = await client.tokens.createAgentSessionToken(agentId);
    const error = await failure(sdk(ws.productionKey, 3).agents.startSession(agentId, token));
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(seen(error)).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      retryable: true,
    });
    // Each attempt reached the service: three 503 answers were logged for this call.
    const sessionStarts503 = () =>
      server
        .logs()
        .filter(
          (l) => l.msg === 'request' && l.status === 503 && String(l.route).endsWith('/sessions'),
        ).length;
    await waitFor(() => sessionStarts503() >= 3, { what: 'three logged 503 answers' });
    expect(sessionStarts503()).toBe(3);
  });
});
