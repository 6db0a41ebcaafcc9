// The operator API's reads behind the dashboard's Agent page: one Agent by id (as the list
// shows it, with api_ready; 404 for another workspace's or environment's Agent) and the
// language models this deployment offers, for every role and never without a session.

import { AVATARS } from '../../../src/agents/avatars/catalog.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  signInAs,
  vi,
} from '../../fixtures/index.ts';
import { LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient, type OperatorResponse } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

vi.setConfig({ testTimeout: budget({ extraMs: 30_000 }) });

const ALL_LEVELS = ['off', 'low', 'medium', 'high'];

interface ListedAgent {
  id: string;
  slug: string;
  voice_id: string | null;
  draft_revision: { id: string; version: number };
  api_ready: boolean;
}

/** The Agent of a 200 or 201 answer (asserting the status). */
function agentOf(response: OperatorResponse, status = 200): ListedAgent {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return (response.body as { agent: ListedAgent }).agent;
}

describeEachDialect('operator API: one Agent and the language models on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let owner: OperatorClient;
  let member: OperatorClient;
  let stranger: OperatorClient;
  let ownerOnDevelopment: OperatorClient;
  let ws: SeededWorkspace;

  beforeAll(
    async ({ databases, apis }) => {
      ({ database, handle } = await databases.get(dialect));
      ws = await seedWorkspace(handle);
      const other = await seedWorkspace(handle);
      await addOperator(handle.db, ws);
      await addOperator(handle.db, ws, { role: 'member' });
      await addOperator(handle.db, other, { email: 'stranger@example.com' });
      server = await apis.start(database, {
        env: {
          ...LLM_ENV,
          OPENAI_MODELS: 'gpt-4.1-mini,o4-mini',
          ANTHROPIC_MODELS: 'claude-haiku-4-5',
        },
      });
      owner = await signInAs(server.url, 'owner@example.com');
      member = await signInAs(server.url, 'member@example.com');
      stranger = await signInAs(server.url, 'stranger@example.com');
      ownerOnDevelopment = await signInAs(server.devUrl, 'owner@example.com');
    },
    budget({ servers: 1 }),
  );

  it('lists each configured provider with its models and their thinking levels, for every role', async () => {
    const expected = {
      providers: [
        {
          name: 'openai',
          models: [
            { name: 'gpt-4.1-mini', thinking_levels: ['off'] },
            { name: 'o4-mini', thinking_levels: ALL_LEVELS },
          ],
        },
        { name: 'anthropic', models: [{ name: 'claude-haiku-4-5', thinking_levels: ALL_LEVELS }] },
      ],
    };
    for (const client of [owner, member, stranger, ownerOnDevelopment]) {
      const response = await client.request('GET', '/llm-models');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expected);
    }
  });

  it('lists the built-in avatars with previews on the same address, for every role', async () => {
    for (const client of [owner, member, ownerOnDevelopment]) {
      const response = await client.request('GET', '/avatars');
      expect(response.status).toBe(200);
      const { avatars } = response.body as {
        avatars: { id: string; name: string; image_url: string }[];
      };
      expect(avatars.map((avatar) => avatar.id)).toEqual(AVATARS.map((avatar) => avatar.id));
      for (const avatar of avatars) {
        expect(avatar.image_url).toBe(`/v1/avatars/${avatar.id}/preview`);
      }
      const preview = await fetch(`${server.url}${avatars[0]?.image_url}`);
      expect(preview.status).toBe(200);
      expect(preview.headers.get('content-type')).toBe('image/png');
    }
  });

  it('reads one Agent exactly as the list shows it, with api_ready, for every role', async () => {
    const ready = agentOf(
      await owner.request('POST', '/agents', {
        slug: 'front-desk',
        voice_id: NATIVE_VOICE,
        display_name: 'Front desk',
      }),
      201,
    );
    const voiceless = agentOf(await owner.request('POST', '/agents', { slug: 'no-voice' }), 201);
    const edited = agentOf(
      await owner.request('PATCH', `/agents/${ready.id}`, { instructions: 'Be brief.' }),
    );
    expect(edited.draft_revision.version).toBe(2);

    const list = await owner.request('GET', '/agents');
    expect(list.status).toBe(200);
    const listed = (list.body as { agents: ListedAgent[] }).agents;
    expect(listed.map((agent) => [agent.slug, agent.api_ready])).toEqual([
      ['front-desk', true],
      ['no-voice', false],
    ]);
    for (const client of [owner, member]) {
      expect(agentOf(await client.request('GET', `/agents/${ready.id}`))).toEqual(listed[0]);
      expect(agentOf(await client.request('GET', `/agents/${voiceless.id}`))).toEqual(listed[1]);
    }
    const one = agentOf(await member.request('GET', `/agents/${ready.id}`));
    expect(one).toMatchObject({
      id: ready.id,
      slug: 'front-desk',
      voice_id: NATIVE_VOICE,
      display_name: 'Front desk',
      instructions: 'Be brief.',
      llm_provider: 'openai',
      llm_model: 'gpt-4.1-mini',
      thinking_level: 'off',
      draft_revision: { id: edited.draft_revision.id, version: 2 },
      active_publication: null,
      api_ready: true,
    });
    expect(agentOf(await owner.request('GET', `/agents/${voiceless.id}`))).toMatchObject({
      slug: 'no-voice',
      voice_id: null,
      api_ready: false,
    });
  });

  it('answers 404 not_found for an Agent of another workspace or environment, or none', async () => {
    const agent = agentOf(
      await owner.request('POST', '/agents', { slug: 'production-only', voice_id: NATIVE_VOICE }),
      201,
    );
    const devAgent = agentOf(
      await ownerOnDevelopment.request('POST', '/agents', { slug: 'development-only' }),
      201,
    );
    const cases: [OperatorClient, string][] = [
      [stranger, agent.id],
      [ownerOnDevelopment, agent.id],
      [owner, devAgent.id],
      [owner, '0190a0b0-0000-7000-8000-000000000000'],
      [owner, 'not-an-id'],
    ];
    for (const [client, id] of cases) {
      const response = await client.request('GET', `/agents/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'not_found', detail: `No Agent ${id}.` });
    }
    expect(agentOf(await ownerOnDevelopment.request('GET', `/agents/${devAgent.id}`)).slug).toBe(
      'development-only',
    );
  });

  it('answers 401 unauthorized without a session or after sign-out', async () => {
    const agent = agentOf(
      await owner.request('POST', '/agents', { slug: 'private', voice_id: NATIVE_VOICE }),
      201,
    );
    const anonymous = new OperatorClient(server.url);
    const leaving = await signInAs(server.url, 'member@example.com');
    expect((await leaving.request('GET', `/agents/${agent.id}`)).status).toBe(200);
    // The cookie of the ended session, sent again (as a copy kept by someone else would be).
    const ended = new OperatorClient(server.url);
    ended.cookie = leaving.cookie;
    expect((await leaving.request('POST', '/sign-out')).status).toBe(204);
    for (const client of [anonymous, ended]) {
      for (const path of [`/agents/${agent.id}`, '/llm-models', '/avatars']) {
        const response = await client.request('GET', path);
        expect(response.status).toBe(401);
        expect(response.body).toMatchObject({ code: 'unauthorized', retryable: false });
      }
    }
  });

  it('imports a card file as a new draft revision and exports what /v1 exports', async () => {
    const agent = agentOf(
      await owner.request('POST', '/agents', { slug: 'card-file', voice_id: NATIVE_VOICE }),
      201,
    );
    const path = `/agents/${agent.id}/character-card`;
    const v2 = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Maya',
        description: 'A night receptionist.',
        first_mes: 'Good evening.',
        system_prompt: 'Speak softly.',
        tags: ['hotel'],
      },
    };
    const imported = await owner.send('POST', path, JSON.stringify(v2), {
      'content-type': 'application/json',
    });
    const after = agentOf(imported) as ListedAgent & {
      character_card: { spec: string; data: Record<string, unknown> };
    };
    expect(after.draft_revision.version).toBe(agent.draft_revision.version + 1);
    expect(after.character_card.spec).toBe('chara_card_v3');
    expect(after.character_card.data).toMatchObject({
      name: 'Maya',
      description: 'A night receptionist.',
      first_mes: 'Good evening.',
      system_prompt: 'Speak softly.',
      tags: ['hotel'],
    });

    // The exports are /v1's, byte for byte, for every role.
    const v1 = (format: string) =>
      fetch(`${server.url}/v1/agents/${agent.id}/character-card?format=${format}`, {
        headers: { authorization: `Bearer ${ws.productionKey}` },
      });
    const json = await member.request('GET', `${path}?format=json`);
    expect(json.status).toBe(200);
    expect(json.body).toEqual(await (await v1('json')).json());
    const png = await member.request('GET', `${path}?format=png`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('content-disposition')).toBe('attachment; filename="card-file.png"');
    expect(
      Buffer.compare(png.body as Buffer, Buffer.from(await (await v1('png')).arrayBuffer())),
    ).toBe(0);
    // The PNG card imports back to the same card.
    const again = agentOf(
      await owner.send('POST', path, new Blob([new Uint8Array(png.body as Buffer)]), {
        'content-type': 'image/png',
      }),
    ) as ListedAgent & { character_card: unknown };
    expect(again.character_card).toEqual(after.character_card);

    const refusals: [OperatorClient, string | undefined, string, number, string][] = [
      [member, 'application/json', JSON.stringify(v2), 403, 'forbidden'],
      [owner, 'text/plain', 'hello', 415, 'invalid_request'],
      [owner, 'application/json', '', 400, 'invalid_request'],
      [owner, 'application/json', '{"not":"a card"}', 400, 'invalid_request'],
      [stranger, 'application/json', JSON.stringify(v2), 404, 'not_found'],
    ];
    for (const [client, type, body, status, code] of refusals) {
      const response = await client.send('POST', path, body, type ? { 'content-type': type } : {});
      expect({ status: response.status, code: (response.body as { code?: string }).code }).toEqual({
        status,
        code,
      });
    }
    expect((await owner.request('GET', `${path}?format=gif`)).status).toBe(400);
  });
});
