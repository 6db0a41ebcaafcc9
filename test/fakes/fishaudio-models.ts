import { randomBytes } from 'node:crypto';
import type { MultipartBody, RecordedRequest, VendorAnswer } from './vendor-server.ts';

/** One voice model the fake Fish Audio account holds. */
export interface FakeFishAudioModel {
  readonly _id: string;
  readonly title: string;
  readonly description: string;
  readonly visibility: string;
  readonly train_mode: string;
  /** File names and transcripts of the recordings, in upload order. */
  readonly samples: { file_name: string; text: string | null; size_bytes: number }[];
  readonly created_at: string;
}

const ONE = /^\/model\/([^/]+)$/;
const VISIBILITIES = new Set(['public', 'unlist', 'private']);

/**
 * The model-management side of the fake Fish Audio API: `POST /model` (multipart `type`
 * = `tts`, `title` required, `train_mode` `fast`, `visibility`, one or more `voices`
 * files of an audio type, optional `texts` that must match the number of files) answering
 * 201 with the model (`_id`, `state: "trained"`: fast mode is usable at once);
 * `GET /model?self=true&title=&page_size=&page_number=` (`{ total, items }`);
 * `GET /model/{id}`; `DELETE /model/{id}`. Models are created on arrival, before any held
 * answer is released.
 */
export class FishAudioModelLibrary {
  readonly models = new Map<string, FakeFishAudioModel>();
  /** How many models `POST /model` created, ever. */
  created = 0;
  readonly #results = new WeakMap<RecordedRequest, VendorAnswer>();

  handles(path: string): boolean {
    return path === '/model' || path.startsWith('/model/');
  }

  accept(request: RecordedRequest): void {
    if (request.auth.valid && request.method === 'POST' && request.path === '/model') {
      this.#results.set(request, this.#create(request));
    }
  }

  answer(request: RecordedRequest): VendorAnswer {
    if (!request.auth.valid) return error(401, 'Invalid Token');
    const done = this.#results.get(request);
    if (done) return done;
    if (request.method === 'GET' && request.path === '/model') {
      const title = request.query.title;
      const pageSize = Number(request.query.page_size ?? 10);
      const page = Number(request.query.page_number ?? 1);
      const all = [...this.models.values()].filter(
        (model) => title === undefined || model.title.includes(title),
      );
      const items = all.slice((page - 1) * pageSize, page * pageSize).map(toJson);
      return { kind: 'json', status: 200, body: { total: all.length, items } };
    }
    const one = ONE.exec(request.path);
    if (one?.[1] !== undefined) {
      const model = this.models.get(one[1]);
      if (!model) return error(404, 'Model not found');
      if (request.method === 'GET') return { kind: 'json', status: 200, body: toJson(model) };
      if (request.method === 'DELETE') {
        this.models.delete(model._id);
        return { kind: 'json', status: 200, body: {} };
      }
    }
    return error(404, 'Not Found');
  }

  #create(request: RecordedRequest): VendorAnswer {
    const form = request.body as MultipartBody | undefined;
    if (form?.kind !== 'multipart') return error(400, 'Expected multipart/form-data');
    const field = (name: string) => form.fields[name]?.[0];
    if (field('type') !== 'tts') return validation('type', "Input should be 'tts'");
    if (!field('title')) return validation('title', 'Field required');
    if ((field('train_mode') ?? 'fast') !== 'fast')
      return validation('train_mode', "Input should be 'fast'");
    const visibility = field('visibility') ?? 'public';
    if (!VISIBILITIES.has(visibility))
      return validation('visibility', 'Input should be public, unlist or private');
    const voices = form.files.filter((file) => file.field === 'voices');
    if (voices.length === 0) return validation('voices', 'Field required');
    for (const file of voices) {
      if (!file.contentType.startsWith('audio/') || file.data.byteLength === 0) {
        return error(400, `${file.fileName} is not an audio file`);
      }
    }
    const texts = form.fields.texts ?? [];
    if (texts.length > 0 && texts.length !== voices.length) {
      return validation('texts', 'texts must match the number of voices');
    }
    const model: FakeFishAudioModel = {
      _id: randomBytes(16).toString('hex'),
      title: field('title') ?? '',
      description: field('description') ?? '',
      visibility,
      train_mode: 'fast',
      samples: voices.map((file, index) => ({
        file_name: file.fileName,
        text: texts[index] ?? null,
        size_bytes: file.data.byteLength,
      })),
      created_at: new Date().toISOString(),
    };
    this.models.set(model._id, model);
    this.created += 1;
    return { kind: 'json', status: 201, body: toJson(model) };
  }
}

function toJson(model: FakeFishAudioModel) {
  return { ...model, type: 'tts', state: 'trained', tags: [], languages: [] };
}

function error(status: number, message: string): VendorAnswer {
  return { kind: 'error', status, body: { status, message } };
}

function validation(field: string, msg: string): VendorAnswer {
  return {
    kind: 'error',
    status: 422,
    body: [{ loc: ['body', field], type: 'value_error', msg, ctx: {}, in: 'body' }],
  };
}
