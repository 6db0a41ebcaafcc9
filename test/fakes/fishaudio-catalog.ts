import { FakeFishAudio } from './fishaudio.ts';
import { type FakeCatalogVoice, pageSize, searchVoices } from './vendor-catalog.ts';
import type { FakeVendorOptions, RecordedRequest, VendorAnswer } from './vendor-server.ts';

/**
 * The fake Fish Audio API plus its model listing, as documented:
 *
 * - `GET /model?page_size (default 10)&page_number (1-based)&title&self` →
 *   `{total, items: [{_id, type, title, description, languages, samples, state,
 *   visibility, author, ...}]}`; `self=true` lists the account's own models, otherwise the
 *   public ones;
 * - `GET /model/{id}` → one model (own or public), 404 otherwise.
 *
 * Synthesis answers like {@link FakeFishAudio} (any model id is accepted as `reference_id`).
 */
export class FakeFishAudioCatalog extends FakeFishAudio {
  /** The account's own models. */
  readonly own: FakeCatalogVoice[] = [];
  /** Public models. */
  readonly public: FakeCatalogVoice[] = [];

  static override async start(options: FakeVendorOptions = {}): Promise<FakeFishAudioCatalog> {
    const fake = new FakeFishAudioCatalog(options);
    await fake.listen();
    return fake;
  }

  protected override answer(request: RecordedRequest): VendorAnswer {
    if (request.method !== 'GET' || !/^\/model(\/[^/]+)?$/.test(request.path)) {
      return super.answer(request);
    }
    if (!request.auth.valid)
      return { kind: 'error', status: 401, body: { status: 401, message: 'Invalid Token' } };
    const { query } = request;
    if (request.path !== '/model') {
      const id = decodeURIComponent(request.path.slice('/model/'.length));
      const model = [...this.own, ...this.public].find((candidate) => candidate.id === id);
      if (!model)
        return { kind: 'error', status: 404, body: { status: 404, message: 'Model not found' } };
      return { kind: 'json', status: 200, body: entity(model, this.own.includes(model)) };
    }
    const size = pageSize(query.page_size, 10, 100);
    const page = Number(query.page_number ?? '1');
    if (size === null || !Number.isInteger(page) || page < 1) {
      return {
        kind: 'error',
        status: 422,
        body: [{ loc: ['query'], type: 'value_error', msg: 'bad paging' }],
      };
    }
    const own = query.self === 'true';
    const matches = searchVoices(own ? this.own : this.public, query.title);
    return {
      kind: 'json',
      status: 200,
      body: {
        total: matches.length,
        items: matches.slice((page - 1) * size, page * size).map((model) => entity(model, own)),
      },
    };
  }
}

function entity(model: FakeCatalogVoice, own: boolean) {
  return {
    _id: model.id,
    type: 'tts',
    title: model.name,
    description: model.description ?? '',
    cover_image: '',
    train_mode: 'fast',
    state: model.state ?? 'trained',
    tags: [],
    samples: [
      {
        title: 'sample',
        text: 'Hello.',
        task_id: 't1',
        audio: `https://storage.example/${model.id}.mp3`,
      },
    ],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    languages: [model.language ?? 'en'],
    visibility: own ? 'private' : 'public',
    lock_visibility: false,
    like_count: 0,
    mark_count: 0,
    shared_count: 0,
    task_count: 0,
    author: { _id: own ? 'me' : 'someone', nickname: own ? 'me' : 'someone' },
  };
}
