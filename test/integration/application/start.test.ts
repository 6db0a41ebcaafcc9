// Starting backend-owned application sessions against a real livekit-server: the answer's
// two parts, the stored application, the room and the worker's dispatch, the control
// credential's grants (decoded, and tried on the server: joins hidden, publishes no audio,
// sends and receives text streams), key-only authentication, every validation rule and
// limit, and idempotent starts. No agent worker runs here.

import {
  AudioSource,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { decodeJwt } from 'jose';
import { AccessToken, AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import { v4 as uuidv4 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  beforeAll,
  describe,
  describeEachDialect,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget, waitFor } from '../../helpers/wait.ts';

const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } } };

describeEachDialect('Application session starts on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let livekit: LivekitServer;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let counter = 0;

  const publishedAgent = async (key = ws.productionKey, publish = true, avatarId?: string) => {
    const call = apiClient(server.url, key);
    const created = await call('POST', '/v1/agents', {
      slug: `app-${++counter}`,
      voice_id: NATIVE_VOICE,
      ...(avatarId ? { avatar_id: avatarId } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    if (publish)
      expect((await call('POST', `/v1/agents/${created.body.id}/publish`)).status).toBe(200);
    return created.body.id as string;
  };
  const startBody = (
    agentId: string,
    application: Record<string, unknown> = {},
  ): {
    agentId: string;
    chatSessionId: string;
    requestId: string;
    application: { instructions: string } & Record<string, unknown>;
  } => ({
    agentId,
    chatSessionId: uuidv4(),
    requestId: uuidv4(),
    application: { instructions: 'You are the booking desk.', ...application },
  });
  const start = (agentId: string, body: unknown, call: ApiClient = api) =>
    call('POST', `/v1/agents/${agentId}/application-sessions`, body);

  beforeAll(
    async ({ databases, apis, livekit: started }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      livekit = started;
      server = await apis.start(database, {
        env: {
          ...LLM_ENV,
          LIVEKIT_URL: livekit.url,
          LIVEKIT_API_KEY: livekit.apiKey,
          LIVEKIT_API_SECRET: livekit.apiSecret,
          AGENT_NAME: 'awp-agent-test',
        },
      });
      api = apiClient(server.url, ws.productionKey);
    },
    budget({ servers: 1 }),
  );

  it('starts: a control part, a browser part, the room, the dispatch and the stored application', async () => {
    const agentId = await publishedAgent(ws.productionKey, true, 'avatar_kofi');
    const body = startBody(agentId, {
      history: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi, how can I help?' },
      ],
      tools: [
        { name: 'lookup_booking', description: 'Finds a booking.', parameters: PARAMETERS },
        {
          name: 'dispatch_courier',
          description: 'Sends a courier.',
          parameters: { type: 'object' },
          cancellable: true,
          onDuplicate: 'confirm',
          runReply: false,
        },
      ],
    });
    const reply = await start(agentId, body);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const sessionId = reply.body.session.session_id as string;
    const room = `awp-${sessionId}`;
    expect(reply.body).toEqual({
      control: {
        livekit_url: livekit.url,
        room,
        token: expect.any(String),
        identity: `app-backend-${sessionId}`,
        expires_at: expect.any(String),
      },
      session: {
        session_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/),
        agent_id: agentId,
        livekit: { url: livekit.url, token: expect.any(String) },
        room,
        // The Agent's avatar, as a managed session's start answers it.
        avatar: {
          id: 'avatar_kofi',
          name: 'Kofi',
          image_url: `${server.url}/v1/avatars/avatar_kofi/preview`,
        },
        expires_at: expect.any(String),
      },
    });
    // The browser part carries nothing of the backend's credential.
    const browserPart = JSON.stringify(reply.body.session);
    expect(browserPart).not.toContain(reply.body.control.token);
    expect(browserPart).not.toContain('app-backend-');
    expect(browserPart).not.toContain('control');

    // The control credential, decoded: five minutes, this room, data only.
    const control = decodeJwt(reply.body.control.token);
    expect(control.iss).toBe(livekit.apiKey);
    expect(control.sub).toBe(`app-backend-${sessionId}`);
    expect((control.exp ?? 0) - (control.nbf ?? 0)).toBe(300);
    expect(Date.parse(reply.body.control.expires_at)).toBe((control.exp ?? 0) * 1000);
    expect(control.video).toEqual({
      room,
      roomJoin: true,
      canPublish: false,
      canPublishSources: [],
      canPublishData: true,
      canSubscribe: false,
      canUpdateOwnMetadata: true,
    });
    // The end user's: the managed session's grant, for the session's lifetime.
    const user = decodeJwt(reply.body.session.livekit.token);
    expect(user.sub).toBe(`user-${sessionId}`);
    expect(user.video).toEqual({
      room,
      roomJoin: true,
      canPublish: true,
      canPublishSources: ['microphone'],
      canPublishData: true,
      canSubscribe: true,
      canUpdateOwnMetadata: false,
    });
    expect(
      Math.abs((user.exp ?? 0) * 1000 - Date.parse(reply.body.session.expires_at)),
    ).toBeLessThan(2_000);

    const rooms = new RoomServiceClient(livekit.httpUrl, livekit.apiKey, livekit.apiSecret);
    expect((await rooms.listRooms([room])).map((r) => r.name)).toEqual([room]);
    const dispatches = await new AgentDispatchClient(
      livekit.httpUrl,
      livekit.apiKey,
      livekit.apiSecret,
    ).listDispatch(room);
    const ours = dispatches.filter((d) => d.agentName === 'awp-agent-test');
    expect(ours).toHaveLength(1);
    expect(JSON.parse(ours[0]?.metadata ?? '{}').session_id).toBe(sessionId);

    const row = await handle.db
      .selectFrom('agent_sessions')
      .selectAll()
      .where('id', '=', sessionId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      kind: 'application',
      backend_identity: `app-backend-${sessionId}`,
      chat_session_id: body.chatSessionId,
      start_request_id: body.requestId,
      end_user_id: null,
      state: 'connecting',
    });
    // Defaults applied; the stored application is what the worker runs.
    expect(JSON.parse(row.application ?? 'null')).toEqual({
      instructions: 'You are the booking desk.',
      history: body.application.history,
      tools: [
        {
          name: 'lookup_booking',
          description: 'Finds a booking.',
          parameters: PARAMETERS,
          cancellable: false,
          onDuplicate: 'allow',
          runReply: true,
        },
        {
          name: 'dispatch_courier',
          description: 'Sends a courier.',
          parameters: { type: 'object' },
          cancellable: true,
          onDuplicate: 'confirm',
          runReply: false,
        },
      ],
    });
    // Memory, calendar, documents and web search are off in application sessions.
    const snapshot = JSON.parse(row.snapshot);
    expect([
      snapshot.webSearchEnabled,
      snapshot.memoryEnabled,
      snapshot.calendarEnabled,
      snapshot.documentsEnabled,
      snapshot.publication.memoryEnabled,
      snapshot.publication.calendarEnabled,
      snapshot.publication.documentsEnabled,
    ]).toEqual([false, false, false, false, false, false, false]);

    const report = await api('GET', `/v1/agent-sessions/${sessionId}`);
    expect([report.status, report.body.kind, report.body.state]).toEqual([
      200,
      'application',
      'connecting',
    ]);
  }, 60_000);

  it("records a session when the backend asks, else as the Agent's recording_enabled says", async () => {
    const recordingOf = async (agentId: string, recording?: boolean) => {
      const body = { ...startBody(agentId), ...(recording === undefined ? {} : { recording }) };
      const reply = await start(agentId, body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      const row = await handle.db
        .selectFrom('agent_sessions')
        .select('snapshot')
        .where('id', '=', reply.body.session.session_id)
        .executeTakeFirstOrThrow();
      return (JSON.parse(row.snapshot) as { recordingEnabled: boolean }).recordingEnabled;
    };
    const agentId = await publishedAgent();
    expect(await recordingOf(agentId)).toBe(false);
    expect(await recordingOf(agentId, true)).toBe(true);
    expect((await api('PATCH', `/v1/agents/${agentId}`, { recording_enabled: true })).status).toBe(
      200,
    );
    expect((await api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
    expect(await recordingOf(agentId)).toBe(true);
    expect(await recordingOf(agentId, false)).toBe(false);
    // Only a boolean.
    const refused = await start(agentId, { ...startBody(agentId), recording: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
  }, 60_000);

  it('the control token joins, sends and receives text streams, and publishes no audio', async () => {
    const agentId = await publishedAgent();
    const reply = await start(agentId, startBody(agentId));
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const sessionId = reply.body.session.session_id as string;
    const backendId = `app-backend-${sessionId}`;
    const workerId = `agent-${sessionId}`;
    // Stands in for the agent worker, with the worker's kind of grant.
    const workerToken = new AccessToken(livekit.apiKey, livekit.apiSecret, {
      identity: workerId,
    });
    workerToken.kind = 'agent';
    workerToken.addGrant({
      room: `awp-${sessionId}`,
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: true,
      canUpdateOwnMetadata: true,
    });

    const worker = new Room();
    const backend = new Room();
    const user = new Room();
    const atWorker: { from: string; text: string; attributes: Record<string, string> }[] = [];
    const atBackend: { from: string; text: string }[] = [];
    const atUser: string[] = [];
    let backendSubscribed = 0;
    worker.registerTextStreamHandler('application.command', (reader, info) => {
      reader.readAll().then(
        (text) =>
          atWorker.push({ from: info.identity, text, attributes: reader.info.attributes ?? {} }),
        () => {},
      );
    });
    backend.registerTextStreamHandler('application.request', (reader, info) => {
      reader.readAll().then(
        (text) => atBackend.push({ from: info.identity, text }),
        () => {},
      );
    });
    user.registerTextStreamHandler('application.command', (reader) => {
      reader.readAll().then(
        (text) => atUser.push(text),
        () => {},
      );
    });
    backend.on(RoomEvent.TrackSubscribed, () => {
      backendSubscribed += 1;
    });
    try {
      await worker.connect(livekit.url, await workerToken.toJwt(), {
        autoSubscribe: true,
        dynacast: false,
      });
      await backend.connect(livekit.url, reply.body.control.token, {
        autoSubscribe: true,
        dynacast: false,
      });
      await user.connect(livekit.url, reply.body.session.livekit.token, {
        autoSubscribe: true,
        dynacast: false,
      });
      expect(backend.localParticipant?.identity).toBe(backendId);
      // The end user publishes a microphone; the backend is never subscribed to it.
      const source = new AudioSource(48_000, 1);
      const micOptions = new TrackPublishOptions();
      micOptions.source = TrackSource.SOURCE_MICROPHONE;
      await user.localParticipant?.publishTrack(
        LocalAudioTrack.createAudioTrack('microphone', source),
        micOptions,
      );
      // canUpdateOwnMetadata: the backend advertises the protocol version on itself.
      await backend.localParticipant?.setAttributes({ 'animated-waffle.application.version': '2' });
      await waitFor(
        () => backend.localParticipant?.attributes['animated-waffle.application.version'] === '2',
        { what: 'the backend attribute to be set' },
      );

      // Backend -> worker, addressed to the worker only.
      const requestId = uuidv4();
      await backend.localParticipant?.sendText(JSON.stringify({ requestId, command: 'x' }), {
        topic: 'application.command',
        destinationIdentities: [workerId],
        attributes: { requestId },
      });
      const got = await waitFor(() => atWorker[0], { what: 'the worker to receive the command' });
      expect(got).toEqual({
        from: backendId,
        text: JSON.stringify({ requestId, command: 'x' }),
        attributes: { requestId },
      });
      // Worker -> backend.
      await worker.localParticipant?.sendText('{"requestId":"r","type":"input"}', {
        topic: 'application.request',
        destinationIdentities: [backendId],
      });
      expect(
        await waitFor(() => atBackend[0], { what: 'the backend to receive a request' }),
      ).toEqual({ from: workerId, text: '{"requestId":"r","type":"input"}' });
      expect(atUser).toEqual([]);

      // The worker sees the backend and its capability attribute (the handshake).
      const seen = await waitFor(
        () =>
          worker.remoteParticipants.get(backendId)?.attributes[
            'animated-waffle.application.version'
          ] === '2' && worker.remoteParticipants.get(backendId),
        { what: "the worker to see the backend's attribute" },
      );
      expect(seen.trackPublications.size).toBe(0);

      // No audio or video publishing: LiveKit refuses the publication.
      const backendOptions = new TrackPublishOptions();
      backendOptions.source = TrackSource.SOURCE_MICROPHONE;
      await expect(
        backend.localParticipant?.publishTrack(
          LocalAudioTrack.createAudioTrack('backend-mic', new AudioSource(48_000, 1)),
          backendOptions,
        ),
      ).rejects.toThrow();
      // By now the user's microphone has long been announced to everyone subscribed.
      expect(backendSubscribed).toBe(0);
    } finally {
      await user.disconnect();
      await backend.disconnect();
      await worker.disconnect();
    }
  }, 90_000);

  it('is idempotent by chatSessionId and requestId: the same session, fresh credentials', async () => {
    const agentId = await publishedAgent();
    const body = startBody(agentId);
    const first = await start(agentId, body);
    expect(first.status).toBe(201);
    const again = await start(agentId, body);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.session.session_id).toBe(first.body.session.session_id);
    expect(again.body.session.expires_at).toBe(first.body.session.expires_at);
    expect(again.body.session.avatar).toEqual({
      id: 'avatar_ada',
      name: 'Ada',
      image_url: `${server.url}/v1/avatars/avatar_ada/preview`,
    });
    expect(again.body.control.identity).toBe(first.body.control.identity);
    expect(Date.parse(again.body.control.expires_at)).toBeGreaterThanOrEqual(
      Date.parse(first.body.control.expires_at),
    );
    expect(decodeJwt(again.body.control.token).video).toEqual(
      decodeJwt(first.body.control.token).video,
    );

    // The same requestId in another chat is another session.
    const otherChat = await start(agentId, { ...body, chatSessionId: uuidv4() });
    expect(otherChat.status).toBe(201);
    expect(otherChat.body.session.session_id).not.toBe(first.body.session.session_id);

    // Concurrent starts with the same keys create one session.
    const raced = startBody(agentId);
    const replies = await Promise.all([1, 2, 3].map(() => start(agentId, raced)));
    expect(replies.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(replies.map((r) => r.body.session.session_id)).size).toBe(1);
    const rows = await handle.db
      .selectFrom('agent_sessions')
      .select('id')
      .where('chat_session_id', '=', raced.chatSessionId)
      .execute();
    expect(rows).toHaveLength(1);

    // The same keys for another Agent, or after the session ended: 409.
    const other = await publishedAgent();
    const foreign = await start(other, { ...body, agentId: other });
    expect([foreign.status, foreign.body.code]).toEqual([409, 'conflict']);
    const sessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 });
    await sessions.end(first.body.session.session_id, 'ended', 'test');
    const over = await start(agentId, body);
    expect([over.status, over.body.code]).toEqual([409, 'conflict']);
  }, 60_000);

  it('takes a workspace key only', async () => {
    const agentId = await publishedAgent();
    const path = `/v1/agents/${agentId}/application-sessions`;
    const body = startBody(agentId);
    const none = await apiClient(server.url, undefined)('POST', path, body);
    expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
    // A browser's Agent session token.
    const sessionToken = (await api('POST', `/v1/agents/${agentId}/session-tokens`, {})).body.token;
    const browser = await apiClient(server.url, sessionToken)('POST', path, body);
    expect([browser.status, browser.body.code]).toEqual([401, 'unauthorized']);
    // A TTS stream token.
    const streamToken = (await api('POST', '/v1/tts/stream-tokens', {})).body.token;
    expect(typeof streamToken).toBe('string');
    const stream = await apiClient(server.url, streamToken)('POST', path, body);
    expect([stream.status, stream.body.code]).toEqual([401, 'unauthorized']);
    // The control token of another application session.
    const started = await start(agentId, startBody(agentId));
    const control = await apiClient(server.url, started.body.control.token)('POST', path, body);
    expect([control.status, control.body.code]).toEqual([401, 'unauthorized']);
    // Another environment's key.
    const dev = await apiClient(server.url, ws.developmentKey)('POST', path, body);
    expect([dev.status, dev.body.code]).toEqual([401, 'unauthorized']);
  }, 30_000);

  it('runs the account and Agent checks of a session start', async () => {
    const cases: [Parameters<typeof seedWorkspace>[1], number, string][] = [
      [{ suspended: true }, 403, 'organization_suspended'],
      [{ billingProvisioned: false }, 503, 'organization_account_missing'],
      [{ capabilities: ['tts'] }, 403, 'capability_disabled'],
    ];
    for (const [options, status, code] of cases) {
      const other = await seedWorkspace(handle, options);
      const agentId = uuidv4();
      const reply = await start(
        agentId,
        startBody(agentId),
        apiClient(server.url, other.productionKey),
      );
      expect([reply.status, reply.body.code], code).toEqual([status, code]);
    }
    // No credit left.
    const broke = await seedWorkspace(handle);
    const brokeAgent = await publishedAgent(broke.productionKey);
    await handle.db
      .updateTable('workspaces')
      .set({ credit_balance_millicredits: 0 })
      .where('id', '=', broke.workspaceId)
      .execute();
    const poor = await start(
      brokeAgent,
      startBody(brokeAgent),
      apiClient(server.url, broke.productionKey),
    );
    expect([poor.status, poor.body.code]).toEqual([402, 'insufficient_credit']);

    const unknown = uuidv4();
    const missing = await start(unknown, startBody(unknown));
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    const draft = await publishedAgent(ws.productionKey, false);
    const unpublished = await start(draft, startBody(draft));
    expect([unpublished.status, unpublished.body.code]).toEqual([409, 'agent_not_published']);
    const voiceless = (await api('POST', '/v1/agents', { slug: `app-${++counter}` })).body.id;
    const notReady = await start(voiceless, startBody(voiceless));
    expect([notReady.status, notReady.body.code]).toEqual([409, 'agent_not_api_ready']);
    // An Agent of another workspace is unknown here.
    const stranger = await seedWorkspace(handle);
    const theirs = await publishedAgent(stranger.productionKey);
    const foreign = await start(theirs, startBody(theirs));
    expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
  }, 60_000);

  it('refuses each invalid body with the exact reason', async () => {
    const agentId = await publishedAgent();
    const tool = (fields: Record<string, unknown> = {}) => ({
      name: 'lookup',
      description: 'Looks up.',
      parameters: { type: 'object' },
      ...fields,
    });
    const tools = (n: number) => Array.from({ length: n }, (_, i) => tool({ name: `tool_${i}` }));
    const history = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: `m${i}`,
      }));
    const cases: [string, (body: ReturnType<typeof startBody>) => unknown, string][] = [
      ['agentId not a UUID', (b) => ({ ...b, agentId: 'ada' }), 'agentId: must be a UUID'],
      ['chatSessionId missing', ({ chatSessionId: _, ...b }) => b, 'chatSessionId: is required'],
      ['requestId not a UUID', (b) => ({ ...b, requestId: 42 }), 'requestId: must be a UUID'],
      [
        'path and body agentId differ',
        (b) => ({ ...b, agentId: uuidv4() }),
        'agentId: must equal the agentId of the path',
      ],
      ['unknown field', (b) => ({ ...b, model: 'x' }), 'unknown field "model"'],
      [
        'instructions missing',
        (b) => ({ ...b, application: {} }),
        'application.instructions: is required',
      ],
      [
        'history over 200',
        (b) => ({ ...b, application: { ...b.application, history: history(201) } }),
        'application.history: at most 200 messages',
      ],
      [
        'history role',
        (b) => ({
          ...b,
          application: { ...b.application, history: [{ role: 'tool', content: 'x' }] },
        }),
        'application.history.0.role: must be one of user, assistant, system',
      ],
      [
        'tools over 64',
        (b) => ({ ...b, application: { ...b.application, tools: tools(65) } }),
        'application.tools: at most 64 tools',
      ],
      [
        'duplicate tool names',
        (b) => ({ ...b, application: { ...b.application, tools: [tool(), tool()] } }),
        'application.tools.1.name: "lookup" is already the name of application.tools.0',
      ],
      [
        'invalid tool name',
        (b) => ({ ...b, application: { ...b.application, tools: [tool({ name: 'look up' })] } }),
        'application.tools.0.name: must match ^[a-zA-Z0-9_-]{1,64}$',
      ],
      [
        'tool name over 64 characters',
        (b) => ({
          ...b,
          application: { ...b.application, tools: [tool({ name: 'a'.repeat(65) })] },
        }),
        'application.tools.0.name: must match ^[a-zA-Z0-9_-]{1,64}$',
      ],
      [
        'parameters not an object',
        (b) => ({ ...b, application: { ...b.application, tools: [tool({ parameters: 'x' })] } }),
        'application.tools.0.parameters: must be a JSON Schema object',
      ],
      [
        'parameters of another type',
        (b) => ({
          ...b,
          application: { ...b.application, tools: [tool({ parameters: { type: 'string' } })] },
        }),
        'application.tools.0.parameters.type: must be "object" (the arguments are an object)',
      ],
      [
        'parameters with an unknown type inside',
        (b) => ({
          ...b,
          application: {
            ...b.application,
            tools: [tool({ parameters: { type: 'object', properties: { a: { type: 'text' } } } })],
          },
        }),
        'application.tools.0.parameters.properties.a.type: must be one of object, array, string, number, integer, boolean, null (or an array of them)',
      ],
      [
        'parameters with a dangling $ref',
        (b) => ({
          ...b,
          application: {
            ...b.application,
            tools: [
              tool({
                parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
              }),
            ],
          },
        }),
        'application.tools.0.parameters.properties.a.$ref: points to nothing in the schema (#/$defs/missing)',
      ],
      [
        'required not a list of names',
        (b) => ({
          ...b,
          application: {
            ...b.application,
            tools: [tool({ parameters: { type: 'object', required: 'a' } })],
          },
        }),
        'application.tools.0.parameters.required: must be an array of property names',
      ],
      [
        'onDuplicate value',
        (b) => ({
          ...b,
          application: { ...b.application, tools: [tool({ onDuplicate: 'queue' })] },
        }),
        'application.tools.0.onDuplicate: must be one of allow, reject, replace, confirm',
      ],
      [
        'cancellable not a boolean',
        (b) => ({ ...b, application: { ...b.application, tools: [tool({ cancellable: 1 })] } }),
        'application.tools.0.cancellable: must be a boolean',
      ],
      [
        'runReply not a boolean',
        (b) => ({ ...b, application: { ...b.application, tools: [tool({ runReply: 'no' })] } }),
        'application.tools.0.runReply: must be a boolean',
      ],
    ];
    for (const [name, mutate, detail] of cases) {
      const reply = await start(agentId, mutate(startBody(agentId)));
      expect([reply.status, reply.body.code, reply.body.detail], name).toEqual([
        400,
        'invalid_request',
        detail,
      ]);
    }
    const notJson = await api(
      'POST',
      `/v1/agents/${agentId}/application-sessions`,
      Buffer.from('{'),
      {
        'content-type': 'application/json',
      },
    );
    expect([notJson.status, notJson.body.code]).toEqual([400, 'invalid_request']);

    // The limits themselves are accepted, with a full JSON Schema.
    const atLimits = await start(
      agentId,
      startBody(agentId, {
        history: history(200),
        tools: [
          tool({
            name: 'book',
            parameters: {
              type: 'object',
              $defs: { slot: { type: 'string', format: 'date-time' } },
              properties: {
                when: { $ref: '#/$defs/slot' },
                seats: { type: 'integer', minimum: 1, maximum: 8 },
                kind: { enum: ['table', 'bar'] },
                notes: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
                tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
              },
              required: ['when'],
              additionalProperties: false,
            },
          }),
          ...tools(63),
        ],
      }),
    );
    expect(atLimits.status, JSON.stringify(atLimits.body)).toBe(201);
  }, 60_000);

  it('refuses a body over 256 KiB with 413 and takes one just under it', async () => {
    const agentId = await publishedAgent();
    const body = startBody(agentId);
    const overhead = Buffer.byteLength(JSON.stringify(body)) - body.application.instructions.length;
    const fill = (bytes: number) => ({
      ...body,
      application: { instructions: 'x'.repeat(bytes - overhead) },
    });
    const under = await start(agentId, fill(256 * 1024));
    expect(under.status, JSON.stringify(under.body)).toBe(201);
    const over = await start(agentId, { ...fill(256 * 1024 + 1), requestId: uuidv4() });
    expect([over.status, over.body.code]).toEqual([413, 'invalid_request']);
  }, 30_000);
});

describe('Application session starts without LiveKit', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get('sqlite'));
      server = await apis.start(database, { env: LLM_ENV });
    },
    budget({ servers: 1 }),
  );

  it('answers 503 service_unavailable and stores no session', async () => {
    const ws = await seedWorkspace(handle);
    const api = apiClient(server.url, ws.productionKey);
    const created = await api('POST', '/v1/agents', { slug: 'nolk', voice_id: NATIVE_VOICE });
    await api('POST', `/v1/agents/${created.body.id}/publish`);
    const agentId = created.body.id as string;
    const reply = await api('POST', `/v1/agents/${agentId}/application-sessions`, {
      agentId,
      chatSessionId: uuidv4(),
      requestId: uuidv4(),
      application: { instructions: 'x' },
    });
    expect([reply.status, reply.body.code, reply.body.retryable]).toEqual([
      503,
      'service_unavailable',
      true,
    ]);
    expect(await handle.db.selectFrom('agent_sessions').selectAll().execute()).toEqual([]);
  }, 30_000);
});
