// Agent sessions end when the key that minted their session token is revoked, or
// their workspace is suspended, by any process (here the test's own database handle, as
// the operator tool does): the end user is taken out of the LiveKit room, and the worker
// ends the session and bills the time it ran. A real livekit-server, the api, the agent
// worker and the OpenAI chat fake; the user only listens to the greeting.

import { describe, expect } from 'vitest';
import { ApiKeys } from '../../../src/auth/api-keys.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { type RealtimeRig, realtimeTest } from '../../fixtures/realtime.ts';
import { apiClient, NATIVE_VOICE } from '../../helpers/agents.ts';
import { DIALECTS } from '../../helpers/database.ts';
import { RoomClient } from '../../helpers/room-client.ts';
import { waitFor } from '../../helpers/wait.ts';

/** "Within a few seconds" of the change, on a busy machine. */
const REMOVED_WITHIN_MS = 8_000;

const it = realtimeTest.override('realtimeOptions', {
  dialect: 'sqlite',
  agentName: 'awp-revocation-worker-test',
  stt: 'none',
});

describe.each(DIALECTS)('Agent sessions of revoked keys on %s (worker)', (dialect) => {
  let rig: RealtimeRig;
  let agentId: string;

  /** A session started with a token minted by `key`, joined, past its greeting. */
  const runningSession = async (key: string) => {
    const minted = await apiClient(rig.server.url, key)(
      'POST',
      `/v1/agents/${agentId}/session-tokens`,
      {},
    );
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const started = await apiClient(rig.server.url, minted.body.token)(
      'POST',
      `/v1/agents/${agentId}/sessions`,
      {},
    );
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const client = await RoomClient.join(started.body.livekit.url, started.body.livekit.token);
    await client.waitUntil(
      () => client.transcripts().find((t) => t.role === 'agent' && t.text === 'Hi.'),
      45_000,
      'the greeting',
    );
    return { sessionId: started.body.session_id as string, client };
  };

  /** The session row once it is over. */
  const endedRow = (sessionId: string) =>
    waitFor(
      () =>
        rig.handle.db
          .selectFrom('agent_sessions')
          .select(['state', 'end_reason', 'session_ms', 'charged_millicredits'])
          .where('id', '=', sessionId)
          .where('state', 'not in', ['connecting', 'active'])
          .executeTakeFirst(),
      { what: `session ${sessionId} to end`, timeoutMs: 30_000 },
    );

  it.beforeAll(async ({ realtimeRigs }) => {
    rig = await realtimeRigs.of(dialect, { agentName: `awp-revocation-worker-test-${dialect}` });
    const created = await rig.api('POST', '/v1/agents', {
      slug: 'revocable',
      voice_id: NATIVE_VOICE,
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      character_card: {
        spec: 'chara_card_v3',
        spec_version: '3.0',
        data: { name: 'Rev', system_prompt: 'You are {{char}}.', first_mes: 'Hi.' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    agentId = created.body.id;
    expect((await rig.api('POST', `/v1/agents/${agentId}/publish`)).status).toBe(200);
  }, 180_000);

  it('takes the end user out of the room when the minting key is revoked, and bills the session', async () => {
    const minting = await new ApiKeys(rig.handle.db).create(
      rig.ws.workspaceId,
      'production',
      'browser sessions',
    );
    const { sessionId, client } = await runningSession(minting.key);
    try {
      const since = Date.now();
      await new ApiKeys(rig.handle.db).revoke(rig.ws.workspaceId, minting.id);
      await client.waitUntil(
        () => !client.room.isConnected,
        REMOVED_WITHIN_MS + 5_000,
        'the user to be removed from the room',
      );
      expect(Date.now() - since).toBeLessThan(REMOVED_WITHIN_MS);
      const row = await endedRow(sessionId);
      expect(row).toMatchObject({ state: 'ended', end_reason: 'user_removed' });
      expect(row.session_ms).toBeGreaterThan(0);
      expect(row.charged_millicredits).toBeGreaterThan(0);
    } finally {
      await client.leave();
    }
  }, 120_000);

  it('ends the sessions of a suspended workspace the same way', async () => {
    const { sessionId, client } = await runningSession(rig.ws.productionKey);
    try {
      const since = Date.now();
      await new Workspaces(rig.handle.db).setStatus(rig.ws.workspaceId, 'suspended');
      await client.waitUntil(
        () => !client.room.isConnected,
        REMOVED_WITHIN_MS + 5_000,
        'the user to be removed from the room',
      );
      expect(Date.now() - since).toBeLessThan(REMOVED_WITHIN_MS);
      const row = await endedRow(sessionId);
      expect(row).toMatchObject({ state: 'ended', end_reason: 'user_removed' });
      expect(row.charged_millicredits).toBeGreaterThan(0);
    } finally {
      await client.leave();
    }
  }, 120_000);
});
