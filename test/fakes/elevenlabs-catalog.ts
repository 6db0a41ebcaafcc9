import { FakeElevenLabs } from './elevenlabs.ts';
import { type FakeCatalogVoice, pageSize, searchVoices } from './vendor-catalog.ts';
import type { FakeVendorOptions, RecordedRequest, VendorAnswer } from './vendor-server.ts';

/**
 * The fake ElevenLabs API plus its voice catalog endpoints, as documented:
 *
 * - `GET /v2/voices?page_size (1..100, default 10)&search&next_page_token` →
 *   `{voices: [{voice_id, name, category, description, labels, preview_url}], has_more,
 *   total_count, next_page_token}` (the account's own voices, including added shared ones);
 * - `GET /v1/voices/{voice_id}` → the voice, 404 `voice_not_found` when not in the account;
 * - `GET /v1/shared-voices?page_size (1..100, default 30)&page (0-based)&search` →
 *   `{voices: [{public_owner_id, voice_id, name, description, language, preview_url, ...}],
 *   has_more, last_sort_id}`;
 * - `POST /v1/voices/add/{public_user_id}/{voice_id}` `{new_name}` → `{voice_id}`: a copy
 *   in the account under a new id, which synthesis then accepts.
 *
 * Synthesis answers like {@link FakeElevenLabs}.
 */
export class FakeElevenLabsCatalog extends FakeElevenLabs {
  /** The account's own voices. */
  readonly own: FakeCatalogVoice[] = [];
  /** The public voice library. */
  readonly shared: FakeCatalogVoice[] = [];
  #added = 0;

  static override async start(options: FakeVendorOptions = {}): Promise<FakeElevenLabsCatalog> {
    const fake = new FakeElevenLabsCatalog(options);
    await fake.listen();
    return fake;
  }

  protected override answer(request: RecordedRequest): VendorAnswer {
    const catalog = this.#catalog(request);
    return catalog ?? super.answer(request);
  }

  #catalog(request: RecordedRequest): VendorAnswer | null {
    const { method, path, query } = request;
    const isCatalog =
      (method === 'GET' &&
        (path === '/v2/voices' ||
          path === '/v1/shared-voices' ||
          /^\/v1\/voices\/[^/]+$/.test(path))) ||
      (method === 'POST' && /^\/v1\/voices\/add\/[^/]+\/[^/]+$/.test(path));
    if (!isCatalog) return null;
    if (!request.auth.valid) return fail(401, 'invalid_api_key', 'Invalid API key');
    if (path === '/v2/voices') {
      const size = pageSize(query.page_size, 10, 100);
      if (size === null) return fail(422, 'validation_error', 'page_size must be 1..100');
      const start = query.next_page_token ? Number(query.next_page_token) : 0;
      const matches = searchVoices(this.own, query.search);
      const page = matches.slice(start, start + size);
      const hasMore = start + size < matches.length;
      return json({
        voices: page.map((voice) => ({
          voice_id: voice.id,
          name: voice.name,
          category: 'cloned',
          description: voice.description ?? null,
          labels: {},
          preview_url: `https://storage.example/preview/${voice.id}.mp3`,
        })),
        has_more: hasMore,
        total_count: matches.length,
        next_page_token: hasMore ? String(start + size) : null,
      });
    }
    if (path === '/v1/shared-voices') {
      const size = pageSize(query.page_size, 30, 100);
      if (size === null) return fail(422, 'validation_error', 'page_size must be 1..100');
      const page = Number(query.page ?? '0');
      const matches = searchVoices(this.shared, query.search);
      const items = matches.slice(page * size, page * size + size);
      return json({
        voices: items.map((voice) => ({
          public_owner_id: voice.publicOwnerId,
          voice_id: voice.id,
          name: voice.name,
          description: voice.description ?? null,
          language: voice.language ?? 'en',
          category: 'professional',
          preview_url: `https://storage.example/shared/${voice.id}.mp3`,
        })),
        has_more: (page + 1) * size < matches.length,
        last_sort_id: null,
      });
    }
    if (method === 'GET') {
      const id = decodeURIComponent(path.slice('/v1/voices/'.length));
      const voice = this.own.find((candidate) => candidate.id === id);
      if (!voice) return fail(404, 'voice_not_found', `A voice with voice_id ${id} was not found.`);
      return json({ voice_id: voice.id, name: voice.name, category: 'cloned' });
    }
    const [, , , , owner, id] = path.split('/').map(decodeURIComponent);
    const voice = this.shared.find((v) => v.id === id && v.publicOwnerId === owner);
    if (!voice) return fail(404, 'voice_not_found', 'The shared voice was not found.');
    const body = request.body as { new_name?: unknown } | string;
    const name =
      typeof body === 'object' && typeof body.new_name === 'string' ? body.new_name : null;
    if (!name)
      return {
        kind: 'error',
        status: 422,
        body: { detail: [{ loc: ['body', 'new_name'], type: 'missing', msg: 'Field required' }] },
      };
    this.#added += 1;
    const added = {
      id: `added${String(this.#added).padStart(4, '0')}${voice.id}`.slice(0, 20),
      name,
    };
    this.own.push(added);
    return json({ voice_id: added.id });
  }
}

function json(body: unknown): VendorAnswer {
  return { kind: 'json', status: 200, body };
}

function fail(status: number, code: string, message: string): VendorAnswer {
  return { kind: 'error', status, body: { detail: { status: code, message } } };
}
