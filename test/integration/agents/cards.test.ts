import http from 'node:http';
import { crc32 } from 'node:zlib';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { type ApiClient, apiClient, LLM_ENV, NATIVE_VOICE } from '../../helpers/agents.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

/** A complete V3 card with every field set. */
const FULL_CARD = {
  spec: 'chara_card_v3',
  spec_version: '3.0',
  data: {
    name: 'Mira',
    description: 'A patient librarian.',
    personality: 'warm, precise',
    scenario: 'A quiet library at dusk.',
    first_mes: 'Welcome! What are you looking for?',
    mes_example: '<START>\n{{user}}: Hi\n{{char}}: Hello there.',
    system_prompt: 'Help visitors find books.',
    post_history_instructions: 'Stay in character.',
    creator_notes: 'Front desk of the library.',
    creator: 'Acme',
    character_version: '1.2',
    alternate_greetings: ['Hello again!', 'Good evening.'],
    tags: ['library', 'helper'],
    group_only_greetings: ['Hello, everyone.'],
    extensions: { depth_prompt: { depth: 4, prompt: 'Be kind.' } },
  },
};

/** Splits a PNG into chunks without the service's code (an independent reader). */
function pngChunks(png: Buffer): { type: string; data: Buffer; crcOk: boolean }[] {
  const chunks = [];
  let offset = 8;
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString('latin1');
    const data = png.subarray(offset + 8, offset + 8 + length);
    const crc = png.readUInt32BE(offset + 8 + length);
    chunks.push({
      type,
      data,
      crcOk: crc32(png.subarray(offset + 4, offset + 8 + length)) === crc,
    });
    offset += 12 + length;
  }
  return chunks;
}

function textChunks(png: Buffer): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const chunk of pngChunks(png).filter((c) => c.type === 'tEXt')) {
    const nul = chunk.data.indexOf(0);
    texts[chunk.data.subarray(0, nul).toString('latin1')] = chunk.data
      .subarray(nul + 1)
      .toString('latin1');
  }
  return texts;
}

/** A chunk as the PNG format writes it. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** `png` with one more tEXt chunk inserted before IEND. */
function withText(png: Buffer, keyword: string, value: string): Buffer {
  const iend = png.length - 12;
  return Buffer.concat([
    png.subarray(0, iend),
    chunk(
      'tEXt',
      Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.of(0), Buffer.from(value, 'latin1')]),
    ),
    png.subarray(iend),
  ]);
}

/**
 * Announces a body one byte over the 8 MiB limit and sends only its start: the server must
 * answer 413 from the length alone (a client writing all 8 MiB would race the close).
 */
function oversizeUpload(
  url: string,
  key: string,
): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'image/png',
        'content-length': String(8 * 1024 * 1024 + 1),
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
      });
    });
    request.on('error', reject);
    request.write(Buffer.alloc(1024));
  });
}

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describeEachDialect('character cards on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;
  let api: ApiClient;
  let plainPng: Buffer;
  let counter = 0;

  const expectError = (
    reply: { status: number; body: { code?: string } },
    status: number,
    code: string,
  ) => {
    expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
  };
  const createAgent = async (fields: Record<string, unknown> = {}) => {
    const reply = await api('POST', '/v1/agents', {
      slug: `card-${++counter}`,
      voice_id: NATIVE_VOICE,
      ...fields,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body;
  };

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    server = await apis.start(database, { env: LLM_ENV });
    api = apiClient(server.url, ws.productionKey);
    plainPng = Buffer.from(
      await (await fetch(`${server.url}/v1/avatars/avatar_mei/preview`)).arrayBuffer(),
    );
  });

  it('maps the legacy fields onto the card and back', async () => {
    const agent = await createAgent({
      display_name: 'Mira',
      description: 'Front desk',
      persona: 'A patient librarian.',
      instructions: 'Help visitors.',
    });
    expect(agent.character_card.data).toMatchObject({
      name: 'Mira',
      creator_notes: 'Front desk',
      description: 'A patient librarian.',
      system_prompt: 'Help visitors.',
    });
    expect(agent).toMatchObject({
      display_name: 'Mira',
      description: 'Front desk',
      persona: 'A patient librarian.',
      instructions: 'Help visitors.',
    });
  });

  it('keeps other card fields on legacy partial updates; an empty string clears one', async () => {
    const agent = await createAgent({ character_card: FULL_CARD });
    expect(agent.character_card).toEqual(FULL_CARD);
    const renamed = await api('PATCH', `/v1/agents/${agent.id}`, { display_name: 'Mina' });
    expect(renamed.body.character_card).toEqual({
      ...FULL_CARD,
      data: { ...FULL_CARD.data, name: 'Mina' },
    });
    const cleared = await api('PATCH', `/v1/agents/${agent.id}`, { instructions: '' });
    expect(cleared.body.character_card.data).toEqual({
      ...FULL_CARD.data,
      name: 'Mina',
      system_prompt: '',
    });
    expect(cleared.body.instructions).toBe('');
  });

  it('replaces the whole card when character_card is patched', async () => {
    const agent = await createAgent({ character_card: FULL_CARD });
    const card = {
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: { name: 'Rex', tags: ['dog'] },
    };
    const reply = await api('PATCH', `/v1/agents/${agent.id}`, { character_card: card });
    expect(reply.status).toBe(200);
    expect(reply.body.character_card.data).toEqual({
      name: 'Rex',
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
      tags: ['dog'],
      group_only_greetings: [],
      extensions: {},
    });
    expect(reply.body.display_name).toBe('Rex');
  });

  it('refuses cards that are not V3 or have mistyped or unknown fields', async () => {
    const agent = await createAgent();
    const bad = [
      { ...FULL_CARD, spec: 'chara_card_v2' },
      { ...FULL_CARD, spec_version: '2.0' },
      { spec: 'chara_card_v3', spec_version: '3.0' },
      { ...FULL_CARD, data: { ...FULL_CARD.data, tags: 'library' } },
      { ...FULL_CARD, data: { ...FULL_CARD.data, name: 7 } },
      { ...FULL_CARD, data: { ...FULL_CARD.data, alternate_greetings: [1] } },
      { ...FULL_CARD, data: { ...FULL_CARD.data, extensions: [] } },
      { ...FULL_CARD, data: { ...FULL_CARD.data, character_book: {} } },
      { ...FULL_CARD, extra: true },
    ];
    for (const card of bad) {
      expectError(
        await api('PATCH', `/v1/agents/${agent.id}`, { character_card: card }),
        400,
        'invalid_request',
      );
    }
  });

  it('exports the card as JSON and imports it into another Agent', async () => {
    const source = await createAgent({ character_card: FULL_CARD });
    const exported = await api('GET', `/v1/agents/${source.id}/character-card`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/json');
    expect(exported.headers.get('content-disposition')).toBe(
      `attachment; filename="${source.slug}.json"`,
    );
    expect(exported.body).toEqual(FULL_CARD);
    expect((await api('GET', `/v1/agents/${source.id}/character-card?format=json`)).body).toEqual(
      FULL_CARD,
    );

    const target = await createAgent();
    const imported = await api('POST', `/v1/agents/${target.id}/character-card`, exported.bytes, {
      'content-type': 'application/json',
    });
    expect(imported.status).toBe(200);
    expect(imported.body.character_card).toEqual(FULL_CARD);
    expect(imported.body.draft_revision.version).toBe(2);
  });

  it('exports a PNG card with ccv3 and chara chunks on the avatar picture and imports it back', async () => {
    const source = await createAgent({ character_card: FULL_CARD, avatar_id: 'avatar_mei' });
    const exported = await api('GET', `/v1/agents/${source.id}/character-card?format=png`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('image/png');
    const chunks = pngChunks(exported.bytes);
    expect(chunks.every((c) => c.crcOk)).toBe(true);
    expect(chunks[0]?.type).toBe('IHDR');
    expect(chunks.at(-1)?.type).toBe('IEND');
    // The picture is the avatar's: same image data as its preview.
    const pictureData = (png: Buffer) =>
      Buffer.concat(
        pngChunks(png)
          .filter((c) => c.type === 'IDAT')
          .map((c) => c.data),
      );
    expect(pictureData(exported.bytes)).toEqual(pictureData(plainPng));
    const texts = textChunks(exported.bytes);
    expect(JSON.parse(Buffer.from(texts.ccv3 ?? '', 'base64').toString('utf8'))).toEqual(FULL_CARD);
    const { group_only_greetings: _v3only, ...v2data } = FULL_CARD.data;
    expect(JSON.parse(Buffer.from(texts.chara ?? '', 'base64').toString('utf8'))).toEqual({
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: v2data,
    });

    const target = await createAgent();
    const imported = await api('POST', `/v1/agents/${target.id}/character-card`, exported.bytes, {
      'content-type': 'image/png',
    });
    expect(imported.status).toBe(200);
    expect(imported.body.character_card).toEqual(FULL_CARD);
  });

  it('imports a V2 card from a legacy chara chunk, and V2 and V1 JSON files', async () => {
    const v2 = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Old Tom',
        description: 'A retired sailor.',
        personality: 'gruff',
        scenario: 'A harbour pub.',
        first_mes: 'Ahoy.',
        mes_example: '',
        creator_notes: 'Imported from V2',
        system_prompt: 'Speak like a sailor.',
        post_history_instructions: '',
        alternate_greetings: ['Evening.'],
        character_book: { entries: [] },
        tags: ['sea'],
        creator: 'Someone',
        character_version: '2',
        extensions: { talkativeness: '0.5' },
      },
    };
    const agent = await createAgent();
    const png = withText(plainPng, 'chara', base64Json(v2));
    const reply = await api('POST', `/v1/agents/${agent.id}/character-card`, png, {
      'content-type': 'image/png',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const { character_book: _dropped, ...fields } = v2.data;
    expect(reply.body.character_card).toEqual({
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: { ...fields, group_only_greetings: [] },
    });
    expect(reply.body).toMatchObject({
      display_name: 'Old Tom',
      persona: 'A retired sailor.',
      instructions: 'Speak like a sailor.',
    });

    // With both chunks, ccv3 wins.
    const both = withText(
      withText(plainPng, 'chara', base64Json(v2)),
      'ccv3',
      base64Json(FULL_CARD),
    );
    const preferred = await api('POST', `/v1/agents/${agent.id}/character-card`, both, {
      'content-type': 'image/png',
    });
    expect(preferred.body.character_card).toEqual(FULL_CARD);

    const json = await api(
      'POST',
      `/v1/agents/${agent.id}/character-card`,
      Buffer.from(JSON.stringify(v2)),
      {
        'content-type': 'application/json',
      },
    );
    expect(json.body.character_card.data.name).toBe('Old Tom');
    const v1 = {
      name: 'Pip',
      description: 'A small robot.',
      personality: 'curious',
      scenario: '',
      first_mes: 'Beep.',
      mes_example: '',
    };
    const fromV1 = await api(
      'POST',
      `/v1/agents/${agent.id}/character-card`,
      Buffer.from(JSON.stringify(v1)),
      {
        'content-type': 'application/json',
      },
    );
    expect(fromV1.body.character_card.data).toMatchObject({ ...v1, system_prompt: '', tags: [] });
  });

  it('answers 400 for damaged or card-less PNGs and bad card files, never a crash', async () => {
    const agent = await createAgent();
    const post = (body: Buffer, type = 'image/png') =>
      api('POST', `/v1/agents/${agent.id}/character-card`, body, { 'content-type': type });
    const good = withText(plainPng, 'ccv3', base64Json(FULL_CARD));
    const badCrc = Buffer.from(good);
    badCrc[good.length - 20] = (badCrc[good.length - 20] ?? 0) ^ 0xff; // inside the tEXt chunk
    const hugeLength = Buffer.from(good);
    hugeLength.writeUInt32BE(0x7ffffff0, 33); // the chunk after IHDR claims 2 GiB
    const damaged = [
      Buffer.from('not a png at all'),
      good.subarray(0, 8),
      good.subarray(0, good.length - 30),
      badCrc,
      hugeLength,
      plainPng, // no card chunk
      withText(plainPng, 'ccv3', '!!!not base64!!!'),
      withText(plainPng, 'ccv3', Buffer.from('{"spec":').toString('base64')),
      withText(plainPng, 'ccv3', base64Json({ spec: 'chara_card_v9', data: {} })),
      withText(plainPng, 'ccv3', base64Json([1, 2])),
    ];
    for (const body of damaged) expectError(await post(body), 400, 'invalid_request');
    expectError(
      await post(Buffer.from('{"spec": "chara_card_v3", "data": 5}'), 'application/json'),
      400,
      'invalid_request',
    );
    expectError(await post(Buffer.from('{'), 'application/json'), 400, 'invalid_request');
    expectError(await post(Buffer.alloc(0)), 400, 'invalid_request');
    expectError(await post(good, 'image/jpeg'), 415, 'invalid_request');
    expectError(
      await oversizeUpload(`${server.url}/v1/agents/${agent.id}/character-card`, ws.productionKey),
      413,
      'invalid_request',
    );
    // The card is unchanged after every refusal.
    expect((await api('GET', `/v1/agents/${agent.id}/character-card`)).body.data.name).toBe(
      agent.slug,
    );
    expect((await api('GET', '/healthz')).status).toBe(200);
  });

  it('answers 404 for card routes of unknown Agents and 400 for an unknown format', async () => {
    const id = '01a20000-0000-7000-8000-000000000000';
    expectError(await api('GET', `/v1/agents/${id}/character-card`), 404, 'not_found');
    expectError(
      await api('POST', `/v1/agents/${id}/character-card`, Buffer.from(JSON.stringify(FULL_CARD)), {
        'content-type': 'application/json',
      }),
      404,
      'not_found',
    );
    const agent = await createAgent();
    expectError(
      await api('GET', `/v1/agents/${agent.id}/character-card?format=gif`),
      400,
      'invalid_request',
    );
  });
});
