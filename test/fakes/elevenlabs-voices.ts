import { randomBytes } from 'node:crypto';
import type { MultipartBody, RecordedRequest, VendorAnswer } from './vendor-server.ts';

/** One voice the fake ElevenLabs account holds. */
export interface FakeElevenLabsVoice {
  readonly voiceId: string;
  name: string;
  description: string;
  labels: Record<string, string>;
  readonly samples: {
    sample_id: string;
    file_name: string;
    mime_type: string;
    size_bytes: number;
  }[];
}

/** Largest file instant cloning accepts. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const ADD = /^\/v1\/voices\/add$/;
const EDIT = /^\/v1\/voices\/([^/]+)\/edit$/;
const ONE = /^\/v1\/voices\/([^/]+)$/;

/**
 * The voice-management side of the fake ElevenLabs API (instant voice cloning):
 * `POST /v1/voices/add` and `POST /v1/voices/{id}/edit` (multipart: `name` required,
 * `files` one part per recording, audio types only, 10 MB each; `labels` a JSON object),
 * `GET /v2/voices?search=` (name contains, case-insensitive), `GET /v1/voices/{id}`
 * (with `samples[].file_name`) and `DELETE /v1/voices/{id}`. Voices are created when the
 * request arrives, before any held answer is released, as a vendor that finished the work
 * but whose answer was lost.
 */
export class ElevenLabsVoiceLibrary {
  readonly voices = new Map<string, FakeElevenLabsVoice>();
  /** How many voices `POST /v1/voices/add` created, ever. */
  created = 0;
  /** New voices answer `requires_verification: true` while this is set. */
  requireVerification = false;
  readonly #results = new WeakMap<RecordedRequest, VendorAnswer>();

  handles(path: string): boolean {
    return path.startsWith('/v1/voices') || path.startsWith('/v2/voices');
  }

  /** Acts on writes as soon as they arrive. */
  accept(request: RecordedRequest): void {
    if (!request.auth.valid || request.method !== 'POST') return;
    if (ADD.test(request.path)) this.#results.set(request, this.#add(request));
    const edit = EDIT.exec(request.path);
    if (edit?.[1] !== undefined) this.#results.set(request, this.#edit(request, edit[1]));
  }

  answer(request: RecordedRequest): VendorAnswer {
    if (!request.auth.valid) return error(401, 'invalid_api_key', 'Invalid API key');
    const done = this.#results.get(request);
    if (done) return done;
    if (request.method === 'GET' && request.path === '/v2/voices') {
      const search = (request.query.search ?? '').toLowerCase();
      const voices = [...this.voices.values()]
        .filter((voice) => voice.name.toLowerCase().includes(search))
        .map(toJson);
      return {
        kind: 'json',
        status: 200,
        body: { voices, has_more: false, total_count: voices.length, next_page_token: null },
      };
    }
    const one = ONE.exec(request.path);
    if (one?.[1] !== undefined && one[1] !== 'add') {
      const voice = this.voices.get(one[1]);
      if (!voice)
        return error(404, 'voice_not_found', `A voice with voice_id ${one[1]} was not found.`);
      if (request.method === 'GET') return { kind: 'json', status: 200, body: toJson(voice) };
      if (request.method === 'DELETE') {
        this.voices.delete(voice.voiceId);
        return { kind: 'json', status: 200, body: { status: 'ok' } };
      }
    }
    return error(404, 'not_found', 'Not found');
  }

  #add(request: RecordedRequest): VendorAnswer {
    const form = multipart(request);
    if (!form) return validationError(['body'], 'Expected multipart/form-data');
    const invalid = validateForm(form, true);
    if (invalid) return invalid;
    const voiceId = randomBytes(15).toString('base64url').replace(/[-_]/g, 'x').slice(0, 20);
    this.voices.set(voiceId, {
      voiceId,
      name: form.fields.name?.[0] ?? '',
      description: form.fields.description?.[0] ?? '',
      labels: JSON.parse(form.fields.labels?.[0] ?? '{}') as Record<string, string>,
      samples: samplesOf(form),
    });
    this.created += 1;
    return {
      kind: 'json',
      status: 200,
      body: { voice_id: voiceId, requires_verification: this.requireVerification },
    };
  }

  #edit(request: RecordedRequest, voiceId: string): VendorAnswer {
    const voice = this.voices.get(voiceId);
    if (!voice)
      return error(404, 'voice_not_found', `A voice with voice_id ${voiceId} was not found.`);
    const form = multipart(request);
    if (!form) return validationError(['body'], 'Expected multipart/form-data');
    const invalid = validateForm(form, false);
    if (invalid) return invalid;
    voice.name = form.fields.name?.[0] ?? voice.name;
    voice.samples.push(...samplesOf(form));
    return { kind: 'json', status: 200, body: { status: 'ok' } };
  }
}

function multipart(request: RecordedRequest): MultipartBody | undefined {
  const body = request.body as MultipartBody | undefined;
  return body?.kind === 'multipart' ? body : undefined;
}

function validateForm(form: MultipartBody, filesRequired: boolean): VendorAnswer | undefined {
  if (!form.fields.name?.[0]) return validationError(['body', 'name'], 'Field required');
  const files = form.files.filter((file) => file.field === 'files');
  if (filesRequired && files.length === 0)
    return validationError(['body', 'files'], 'Field required');
  for (const file of files) {
    if (!file.contentType.startsWith('audio/') || file.data.byteLength === 0) {
      return error(400, 'invalid_audio', `${file.fileName} is not an audio file`);
    }
    if (file.data.byteLength > MAX_FILE_BYTES) {
      return error(400, 'file_too_large', `${file.fileName} is larger than 10 MB`);
    }
  }
  const labels = form.fields.labels?.[0];
  if (labels !== undefined) {
    try {
      const parsed: unknown = JSON.parse(labels);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
    } catch {
      return validationError(['body', 'labels'], 'labels must be a JSON object');
    }
  }
  return undefined;
}

function samplesOf(form: MultipartBody): FakeElevenLabsVoice['samples'] {
  return form.files
    .filter((file) => file.field === 'files')
    .map((file) => ({
      sample_id: randomBytes(10).toString('hex'),
      file_name: file.fileName,
      mime_type: file.contentType,
      size_bytes: file.data.byteLength,
    }));
}

function toJson(voice: FakeElevenLabsVoice) {
  return {
    voice_id: voice.voiceId,
    name: voice.name,
    category: 'cloned',
    description: voice.description,
    labels: voice.labels,
    samples: voice.samples,
  };
}

function error(status: number, code: string, message: string): VendorAnswer {
  return { kind: 'error', status, body: { detail: { status: code, message } } };
}

function validationError(loc: string[], msg: string): VendorAnswer {
  return { kind: 'error', status: 422, body: { detail: [{ loc, type: 'missing', msg }] } };
}
