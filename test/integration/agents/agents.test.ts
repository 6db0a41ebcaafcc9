import { Validator } from '@seriousme/openapi-schema-validator';
import { AgentStore } from '../../../src/agents/agent-store.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { VoiceStore } from '../../../src/voices/voice-store.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeEachDialect('Agents on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let devApi: ApiClient;
  let importedVoice: string;
  let devVoice: string;

  const expectError = (
    reply: { status: number; body: { code?: string } },
    status: number,
    code: string,
  ) => {
    expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  };
  let counter = 0;
  const slug = (prefix = 'agent') => `${prefix}-${++counter}`;
  const createAgent = async (fields: Record<string, unknown> = {}) => {
    const reply = await api('POST', '/v1/agents', {
      slug: slug(),
      voice_id: NATIVE_VOICE,
      ...fields,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body;
  };

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    const voices = new VoiceStore(handle.db);
    importedVoice = (
      await voices.importVoice({
        workspaceId: ws.workspaceId,
        environment: 'production',
        provider: 'elevenlabs',
        providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
        model: 'eleven_v3',
        name: 'George',
      })
    ).id;
    devVoice = (
      await voices.importVoice({
        workspaceId: ws.workspaceId,
        environment: 'development',
        provider: 'elevenlabs',
        providerVoiceId: 'JBFqnCBsd6RMkjVDRZzb',
        model: 'eleven_v3',
        name: 'George (dev)',
      })
    ).id;
    server = await apis.start(database, { env: LLM_ENV });
    api = apiClient(server.url, ws.productionKey);
    devApi = apiClient(server.devUrl, ws.developmentKey);
  });

  it('creates an Agent with every field of the resource and the documented defaults', async () => {
    const reply = await api('POST', '/v1/agents', { slug: 'front-desk', voice_id: NATIVE_VOICE });
    expect(reply.status).toBe(201);
    const agent = reply.body;
    expect(agent.id).toMatch(UUID);
    expect(agent).toEqual({
      id: agent.id,
      slug: 'front-desk',
      avatar_id: 'avatar_ada',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: {
          name: 'front-desk',
          description: '',
          personality: '',
          scenario: '',
          first_mes: '',
          mes_example: '',
          system_prompt: '',
          post_history_instructions: '',
          creator_notes: '',
          creator: '',
          character_version: '',
          alternate_greetings: [],
          tags: [],
          group_only_greetings: [],
          extensions: {},
        },
      },
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      thinking_level: 'off',
      web_search_enabled: false,
      memory_enabled: false,
      calendar_enabled: false,
      documents_enabled: false,
      language: null,
      recording_enabled: false,
      draft_revision: { id: expect.stringMatching(UUID), version: 1 },
      active_publication: null,
      created_at: expect.stringMatching(ISO),
      updated_at: agent.created_at,
      display_name: 'front-desk',
      description: '',
      persona: '',
      instructions: '',
    });
  });

  it('stores every writable field as sent', async () => {
    const agent = await createAgent({
      voice_id: importedVoice,
      avatar_id: 'avatar_kofi',
      llm_provider: 'anthropic',
      llm_model: 'claude-haiku-4-5',
      thinking_level: 'high',
      web_search_enabled: true,
      memory_enabled: true,
      calendar_enabled: true,
      documents_enabled: true,
      display_name: 'Kofi',
      instructions: 'Answer briefly.',
    });
    expect(agent).toMatchObject({
      voice_id: importedVoice,
      avatar_id: 'avatar_kofi',
      llm_provider: 'anthropic',
      llm_model: 'claude-haiku-4-5',
      thinking_level: 'high',
      web_search_enabled: true,
      memory_enabled: true,
      calendar_enabled: true,
      documents_enabled: true,
      display_name: 'Kofi',
      instructions: 'Answer briefly.',
    });
    const read = await api('GET', `/v1/agents/${agent.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(agent);
  });

  it('keeps the users’ language as a canonical BCP 47 tag, clears it with null, and publishes it', async () => {
    const agent = await createAgent({ language: 'es-mx' });
    expect(agent.language).toBe('es-MX');
    const renamed = await api('PATCH', `/v1/agents/${agent.id}`, { language: 'zh-hans-cn' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.language).toBe('zh-Hans-CN');
    // Other writes keep it.
    const edited = await api('PATCH', `/v1/agents/${agent.id}`, { instructions: 'Be brief.' });
    expect(edited.body.language).toBe('zh-Hans-CN');
    expect((await api('POST', `/v1/agents/${agent.id}/publish`)).status).toBe(200);
    const snapshot = await new AgentStore(handle.db).activePublication(
      ws.workspaceId,
      'production',
      agent.id,
    );
    expect(snapshot?.language).toBe('zh-Hans-CN');
    const cleared = await api('PATCH', `/v1/agents/${agent.id}`, { language: null });
    expect(cleared.body.language).toBeNull();
    // The publication keeps the language it was published with.
    const stillPublished = await new AgentStore(handle.db).activePublication(
      ws.workspaceId,
      'production',
      agent.id,
    );
    expect(stillPublished?.language).toBe('zh-Hans-CN');

    for (const language of ['english', 'e', 'en_US', '123', 'en--us', 7]) {
      const refused = await api('PATCH', `/v1/agents/${agent.id}`, { language });
      expectError(refused, 400, 'invalid_request');
    }
    expect((await api('GET', `/v1/agents/${agent.id}`)).body.language).toBeNull();
  });

  it('checks slugs: shape, uniqueness per workspace and environment', async () => {
    expectError(await api('POST', '/v1/agents', { slug: 'Not A Slug' }), 400, 'invalid_request');
    expectError(await api('POST', '/v1/agents', { slug: '-x' }), 400, 'invalid_request');
    expectError(await api('POST', '/v1/agents', { slug: 'a'.repeat(65) }), 400, 'invalid_request');
    expectError(await api('POST', '/v1/agents', {}), 400, 'invalid_request');
    await createAgent({ slug: 'taken' });
    expectError(await api('POST', '/v1/agents', { slug: 'taken' }), 409, 'conflict');
    // The development environment has its own slugs.
    expect((await devApi('POST', '/v1/agents', { slug: 'taken' })).status).toBe(201);
    const other = await createAgent();
    expectError(await api('PATCH', `/v1/agents/${other.id}`, { slug: 'taken' }), 409, 'conflict');
    const renamed = await api('PATCH', `/v1/agents/${other.id}`, { slug: `${other.slug}-renamed` });
    expect(renamed.body.slug).toBe(`${other.slug}-renamed`);
  });

  it('accepts only voices of the same workspace catalog and environment', async () => {
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), voice_id: 'voice_unknown' }),
      404,
      'voice_not_found',
    );
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), voice_id: 'JBFqnCBsd6RMkjVDRZzb' }),
      404,
      'voice_not_found',
    );
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), voice_id: devVoice }),
      404,
      'voice_not_found',
    );
    const other = await seedWorkspace(handle);
    const otherApi = apiClient(server.url, other.productionKey);
    expectError(
      await otherApi('POST', '/v1/agents', { slug: slug(), voice_id: importedVoice }),
      404,
      'voice_not_found',
    );
    expect((await devApi('POST', '/v1/agents', { slug: slug(), voice_id: devVoice })).status).toBe(
      201,
    );
  });

  it('accepts only avatars of the catalog', async () => {
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), avatar_id: 'avatar_nobody' }),
      404,
      'not_found',
    );
    const agent = await createAgent();
    expectError(
      await api('PATCH', `/v1/agents/${agent.id}`, { avatar_id: 'nope' }),
      404,
      'not_found',
    );
    expect(
      (await api('PATCH', `/v1/agents/${agent.id}`, { avatar_id: 'avatar_mei' })).body.avatar_id,
    ).toBe('avatar_mei');
  });

  it('accepts only language models the deployment offers, and keeps any thinking level', async () => {
    const bad = [
      { llm_provider: 'mistral' },
      { thinking_level: 'extreme' },
      // Models the deployment does not run (GET /v1/models lists the ones it does).
      { llm_model: 'gpt-3' },
      { llm_provider: 'openai', llm_model: 'claude-haiku-4-5' },
    ];
    for (const fields of bad) {
      expectError(
        await api('POST', '/v1/agents', { slug: slug(), ...fields }),
        400,
        'invalid_request',
      );
    }
    // A level the model does not reason at is kept as given (the model runs `off`), and
    // applies once the Agent switches to a model that reasons.
    const plain = await createAgent({
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      thinking_level: 'high',
    });
    expect(plain).toMatchObject({ llm_model: 'gpt-4.1-mini', thinking_level: 'high' });
    expect((await createAgent({ thinking_level: 'low' })).thinking_level).toBe('low');
    const kept = await api('PATCH', `/v1/agents/${plain.id}`, { llm_model: 'o4-mini' });
    expect(kept.body).toMatchObject({ llm_model: 'o4-mini', thinking_level: 'high' });
    const reasoning = await createAgent({
      llm_provider: 'openai',
      llm_model: 'o4-mini',
      thinking_level: 'medium',
    });
    expect(reasoning).toMatchObject({
      llm_provider: 'openai',
      llm_model: 'o4-mini',
      thinking_level: 'medium',
    });
    // A provider alone selects its first model; a model alone stays with the provider.
    const switched = await api('PATCH', `/v1/agents/${reasoning.id}`, {
      llm_provider: 'anthropic',
    });
    expect(switched.body).toMatchObject({
      llm_provider: 'anthropic',
      llm_model: 'claude-sonnet-4-6',
    });
    const model = await api('PATCH', `/v1/agents/${reasoning.id}`, {
      llm_model: 'claude-haiku-4-5',
    });
    expect(model.body).toMatchObject({ llm_provider: 'anthropic', llm_model: 'claude-haiku-4-5' });
    expectError(
      await api('PATCH', `/v1/agents/${reasoning.id}`, { llm_model: 'gpt-4.1' }),
      400,
      'invalid_request',
    );
  });

  it('refuses unknown fields, wrong types and legacy fields mixed with a card', async () => {
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), colour: 'red' }),
      400,
      'invalid_request',
    );
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), memory_enabled: 'yes' }),
      400,
      'invalid_request',
    );
    const agent = await createAgent();
    const card = { spec: 'chara_card_v3', spec_version: '3.0', data: { name: 'X' } };
    expectError(
      await api('PATCH', `/v1/agents/${agent.id}`, { character_card: card, persona: 'p' }),
      400,
      'invalid_request',
    );
    expectError(
      await api('POST', '/v1/agents', { slug: slug(), character_card: card, display_name: 'Y' }),
      400,
      'invalid_request',
    );
    expectError(await api('PATCH', `/v1/agents/${agent.id}`, 'not json'), 400, 'invalid_request');
  });

  it('answers 404 for unknown Agents and Agents of another workspace or environment', async () => {
    const agent = await createAgent();
    const other = await seedWorkspace(handle);
    const otherApi = apiClient(server.url, other.productionKey);
    for (const [client, id] of [
      [api, '01a20000-0000-7000-8000-000000000000'],
      [api, 'not-a-uuid'],
      [otherApi, agent.id],
      [devApi, agent.id],
    ] as const) {
      expectError(await client('GET', `/v1/agents/${id}`), 404, 'not_found');
      expectError(await client('PATCH', `/v1/agents/${id}`, { persona: 'x' }), 404, 'not_found');
      expectError(await client('DELETE', `/v1/agents/${id}`), 404, 'not_found');
      expectError(await client('POST', `/v1/agents/${id}/publish`), 404, 'not_found');
    }
  });

  it('makes each write a new immutable draft revision', async () => {
    const agent = await createAgent();
    const first = agent.draft_revision;
    const second = (await api('PATCH', `/v1/agents/${agent.id}`, { persona: 'calm' })).body;
    const third = (await api('PATCH', `/v1/agents/${agent.id}`, {})).body;
    expect(second.draft_revision.version).toBe(2);
    expect(third.draft_revision.version).toBe(3);
    expect(new Set([first.id, second.draft_revision.id, third.draft_revision.id]).size).toBe(3);
    expect(Date.parse(third.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    expect(third.created_at).toBe(agent.created_at);
    const rows = await handle.db
      .selectFrom('agent_revisions')
      .select(['version', 'character_card'])
      .where('agent_id', '=', agent.id)
      .orderBy('version')
      .execute();
    expect(
      rows.map((r) => [Number(r.version), JSON.parse(r.character_card).data.description]),
    ).toEqual([
      [1, ''],
      [2, 'calm'],
      [3, 'calm'],
    ]);
  });

  it('omits Agents without a public voice from the list and answers 409 when fetched', async () => {
    const voiceless = (await api('POST', '/v1/agents', { slug: slug('voiceless') })).body;
    expect(voiceless.voice_id).toBeNull();
    expectError(await api('GET', `/v1/agents/${voiceless.id}`), 409, 'agent_not_api_ready');
    const listed = async () =>
      (await api('GET', '/v1/agents?limit=100')).body.agents.map((a: { id: string }) => a.id);
    expect(await listed()).not.toContain(voiceless.id);
    // Edits still work on it; choosing a voice makes it API-ready.
    const patched = await api('PATCH', `/v1/agents/${voiceless.id}`, { voice_id: NATIVE_VOICE });
    expect(patched.status).toBe(200);
    expect(await listed()).toContain(voiceless.id);
    expect((await api('GET', `/v1/agents/${voiceless.id}`)).status).toBe(200);
    // null clears the selection again.
    expect(
      (await api('PATCH', `/v1/agents/${voiceless.id}`, { voice_id: null })).body.voice_id,
    ).toBeNull();
    expect(await listed()).not.toContain(voiceless.id);
    // A voice that leaves the catalog takes the Agent out of the list.
    const agent = await createAgent({ voice_id: importedVoice });
    expect(await listed()).toContain(agent.id);
    await handle.db.updateTable('voice_routes').set({ enabled: 0 }).execute();
    try {
      expect(await listed()).not.toContain(agent.id);
      expectError(await api('GET', `/v1/agents/${agent.id}`), 409, 'agent_not_api_ready');
    } finally {
      await handle.db.updateTable('voice_routes').set({ enabled: 1 }).execute();
    }
  });

  it('pages the list with limit and cursor, and filters by slug', async () => {
    const fresh = await seedWorkspace(handle);
    const freshApi = apiClient(server.url, fresh.productionKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await freshApi('POST', '/v1/agents', {
        slug: `page-${i}`,
        ...(i === 2 ? {} : { voice_id: NATIVE_VOICE }),
      });
      if (i !== 2) ids.push(reply.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply: {
        status: number;
        body: { agents: { id: string }[]; next_cursor: string | null };
      } = await freshApi('GET', `/v1/agents?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(reply.status).toBe(200);
      expect(reply.body.agents.length).toBeLessThanOrEqual(2);
      seen.push(...reply.body.agents.map((a) => a.id));
      cursor = reply.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(2);
    const bySlug = await freshApi('GET', '/v1/agents?slug=page-3');
    expect(bySlug.body.agents.map((a: { slug: string }) => a.slug)).toEqual(['page-3']);
    expect((await freshApi('GET', '/v1/agents?slug=page-2')).body.agents).toEqual([]);
    expectError(await freshApi('GET', '/v1/agents?limit=0'), 400, 'invalid_request');
    expectError(await freshApi('GET', '/v1/agents?limit=101'), 400, 'invalid_request');
    expectError(await freshApi('GET', '/v1/agents?cursor=nope'), 400, 'invalid_request');
  });

  it('lists every Agent when no paging parameter is given (paging is opt-in)', async () => {
    const fresh = await seedWorkspace(handle);
    const freshApi = apiClient(server.url, fresh.productionKey);
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) {
      const reply = await freshApi('POST', '/v1/agents', {
        slug: `whole-${i}`,
        voice_id: NATIVE_VOICE,
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      ids.push(reply.body.id);
    }
    const whole = await freshApi('GET', '/v1/agents');
    expect(whole.status).toBe(200);
    expect(whole.body.agents.map((a: { id: string }) => a.id)).toEqual(ids);
    expect(whole.body.next_cursor).toBeNull();
    // A cursor alone pages by 50.
    const paged = await freshApi('GET', `/v1/agents?cursor=${ids[0]}`);
    expect(paged.body.agents.map((a: { id: string }) => a.id)).toEqual(ids.slice(1, 51));
    expect(paged.body.next_cursor).toBe(ids[50]);
  }, 60_000);

  it('deletes an Agent with its revisions and publications', async () => {
    const agent = await createAgent();
    expect((await api('POST', `/v1/agents/${agent.id}/publish`)).status).toBe(200);
    const reply = await api('DELETE', `/v1/agents/${agent.id}`);
    expect(reply.status).toBe(204);
    expect(reply.bytes.byteLength).toBe(0);
    expectError(await api('GET', `/v1/agents/${agent.id}`), 404, 'not_found');
    const left = await handle.db
      .selectFrom('agent_revisions')
      .select('id')
      .where('agent_id', '=', agent.id)
      .execute();
    expect(left).toEqual([]);
    // The slug is free again.
    expect((await api('POST', '/v1/agents', { slug: agent.slug })).status).toBe(201);
  });

  it('publishes immutable snapshots that later draft edits leave alone', async () => {
    const voiceless = (await api('POST', '/v1/agents', { slug: slug() })).body;
    expectError(
      await api('POST', `/v1/agents/${voiceless.id}/publish`),
      409,
      'agent_not_api_ready',
    );
    expectError(
      await api('POST', `/v1/agents/${voiceless.id}/publish`, { note: 1 }),
      400,
      'invalid_request',
    );

    const agent = await createAgent({
      instructions: 'Version one.',
      memory_enabled: true,
      avatar_id: 'avatar_sam',
    });
    const published = await api('POST', `/v1/agents/${agent.id}/publish`, {});
    expect(published.status).toBe(200);
    const publication = published.body.active_publication;
    expect(publication).toEqual({
      id: expect.stringMatching(UUID),
      version: 1,
      revision: agent.draft_revision,
      memory_enabled: true,
      calendar_enabled: false,
      documents_enabled: false,
      created_at: expect.stringMatching(ISO),
    });

    const edited = await api('PATCH', `/v1/agents/${agent.id}`, {
      instructions: 'Version two.',
      memory_enabled: false,
      calendar_enabled: true,
      voice_id: importedVoice,
      llm_provider: 'anthropic',
    });
    expect(edited.body.active_publication).toEqual(publication);
    expect(edited.body.instructions).toBe('Version two.');

    const store = new AgentStore(handle.db);
    const snapshot = await store.activePublication(ws.workspaceId, 'production', agent.id);
    expect(snapshot).toMatchObject({
      agentId: agent.id,
      voiceId: NATIVE_VOICE,
      avatarId: 'avatar_sam',
      llmProvider: 'openai',
      llmModel: 'gpt-4.1-mini',
      thinkingLevel: 'off',
      memoryEnabled: true,
      calendarEnabled: false,
      documentsEnabled: false,
      webSearchEnabled: false,
      publication: { id: publication.id, version: 1, revision: agent.draft_revision },
    });
    expect(snapshot?.characterCard.data.system_prompt).toBe('Version one.');

    const second = (await api('POST', `/v1/agents/${agent.id}/publish`)).body.active_publication;
    expect(second.version).toBe(2);
    expect(second.revision).toEqual(edited.body.draft_revision);
    expect(second).toMatchObject({ memory_enabled: false, calendar_enabled: true });
    const now = await store.activePublication(ws.workspaceId, 'production', agent.id);
    expect(now).toMatchObject({
      voiceId: importedVoice,
      llmProvider: 'anthropic',
      calendarEnabled: true,
    });
    expect(now?.characterCard.data.system_prompt).toBe('Version two.');
    // Publications are rows that stay: the first still points at revision 1.
    const rows = await handle.db
      .selectFrom('agent_publications')
      .select(['version', 'revision_id'])
      .where('agent_id', '=', agent.id)
      .orderBy('version')
      .execute();
    expect(rows.map((r) => [Number(r.version), r.revision_id])).toEqual([
      [1, agent.draft_revision.id],
      [2, edited.body.draft_revision.id],
    ]);
    expect(await store.activePublication(ws.workspaceId, 'production', voiceless.id)).toBeNull();
    expect(await store.activePublication(ws.workspaceId, 'development', agent.id)).toBeNull();
  });

  it('refuses to publish a language model the deployment no longer offers', async () => {
    const agent = await createAgent();
    await handle.db
      .updateTable('agent_revisions')
      .set({ llm_model: 'gpt-2' })
      .where('id', '=', agent.draft_revision.id)
      .execute();
    expectError(await api('POST', `/v1/agents/${agent.id}/publish`), 409, 'conflict');
  });

  it('requires the agents capability and a workspace key', async () => {
    const ttsOnly = await seedWorkspace(handle, { capabilities: ['tts'] });
    const ttsApi = apiClient(server.url, ttsOnly.productionKey);
    for (const [method, path] of [
      ['GET', '/v1/agents'],
      ['POST', '/v1/agents'],
      ['GET', '/v1/agents/x'],
      ['PATCH', '/v1/agents/x'],
      ['DELETE', '/v1/agents/x'],
      ['POST', '/v1/agents/x/publish'],
      ['GET', '/v1/avatars'],
    ] as const) {
      expectError(
        await ttsApi(method, path, method === 'POST' || method === 'PATCH' ? {} : undefined),
        403,
        'capability_disabled',
      );
      expectError(await apiClient(server.url, undefined)(method, path), 401, 'unauthorized');
    }
    const suspended = await seedWorkspace(handle, { suspended: true });
    expectError(
      await apiClient(server.url, suspended.productionKey)('GET', '/v1/agents'),
      403,
      'organization_suspended',
    );
    const unbilled = await seedWorkspace(handle, { billingProvisioned: false });
    expectError(
      await apiClient(server.url, unbilled.productionKey)('GET', '/v1/agents'),
      503,
      'organization_account_missing',
    );
  });

  it('serves the avatar catalog and its preview images', async () => {
    const reply = await api('GET', '/v1/avatars');
    expect(reply.status).toBe(200);
    const avatars = reply.body.avatars as { id: string; name: string; image_url: string }[];
    expect(avatars.length).toBeGreaterThanOrEqual(6);
    expect(avatars[0]?.id).toBe('avatar_ada');
    const etags = new Set<string>();
    for (const avatar of avatars) {
      expect(avatar.image_url).toBe(`${server.url}/v1/avatars/${avatar.id}/preview`);
      expect(avatar.name.length).toBeGreaterThan(0);
      // Public: a browser loads it without a credential.
      const image = await fetch(avatar.image_url);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(image.headers.get('cache-control')).toBe('public, max-age=86400');
      const bytes = Buffer.from(await image.arrayBuffer());
      expect(bytes.subarray(0, 8)).toEqual(
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      );
      expect(bytes.readUInt32BE(16)).toBe(256); // IHDR width
      expect(bytes.readUInt32BE(20)).toBe(256); // IHDR height
      const etag = image.headers.get('etag') ?? '';
      etags.add(etag);
      const cached = await fetch(avatar.image_url, { headers: { 'if-none-match': etag } });
      expect(cached.status).toBe(304);
    }
    expect(etags.size).toBe(avatars.length); // every portrait differs
    const missing = await fetch(`${server.url}/v1/avatars/avatar_nobody/preview`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('not_found');
  });

  it('documents the Agent routes and every supported model choice in OpenAPI', async () => {
    const document = await (await fetch(`${server.url}/v1/openapi.json`)).json();
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    for (const [path, methods] of Object.entries({
      '/v1/agents': ['get', 'post'],
      '/v1/agents/{agentId}': ['get', 'patch', 'delete'],
      '/v1/agents/{agentId}/publish': ['post'],
      '/v1/agents/{agentId}/session-tokens': ['post'],
      '/v1/agents/{agentId}/character-card': ['get', 'post'],
      '/v1/avatars': ['get'],
      '/v1/avatars/{avatarId}/preview': ['get'],
      '/v1/models': ['get'],
    })) {
      expect(Object.keys(document.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
    }
    const create = document.paths['/v1/agents'].post.requestBody.content['application/json'].schema;
    // Every supported provider, whatever this deployment configures (`GET /v1/models`).
    expect(create.properties.llm_provider.enum).toEqual(['openai', 'anthropic', 'local']);
    expect(create.properties.llm_model.type).toBe('string');
    expect(create.properties.llm_model.enum).toBeUndefined();
    expect(create.properties.thinking_level.enum).toEqual(['off', 'low', 'medium', 'high']);
    expect(create.required).toEqual(['slug']);
    const patch =
      document.paths['/v1/agents/{agentId}'].patch.requestBody.content['application/json'].schema;
    expect(patch.properties.llm_provider.enum).toEqual(['openai', 'anthropic', 'local']);
    expect(
      Object.keys(document.paths['/v1/agents/{agentId}/character-card'].post.requestBody.content),
    ).toEqual(['application/json', 'image/png']);
  });
});
