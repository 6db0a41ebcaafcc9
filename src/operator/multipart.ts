import type { z } from 'zod';
import { ApiError, unsupportedMediaTypeError } from '../errors.ts';
import { bodyBlob } from '../http/request-body.ts';
import type { HttpRequest } from '../http/types.ts';
import { validate } from '../http/validate.ts';

/** An uploaded file of a multipart form. */
export interface UploadedFile {
  fileName: string;
  contentType: string;
  data: Buffer;
}

/** A multipart form: its JSON `metadata` field, validated, and its files by field name. */
export interface UploadForm<Metadata> {
  metadata: Metadata;
  files(field: string): UploadedFile[];
}

/**
 * Reads a `multipart/form-data` upload: a `metadata` field holding JSON (validated by
 * `schema`) and file fields. Parsed by the runtime's own fetch implementation (undici's
 * `Response.formData()`), so no parser is hand-written and none is added; the server has
 * already limited the body's size, and on spooling routes the form is read from its file
 * only now, once the whole upload arrived.
 */
export async function readUploadForm<Metadata>(
  request: HttpRequest,
  schema: z.ZodType<Metadata>,
): Promise<UploadForm<Metadata>> {
  const type = request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;\s*boundary=/i.test(type)) {
    throw unsupportedMediaTypeError('The request body must be multipart/form-data.');
  }
  let form: FormData;
  try {
    const body = await bodyBlob(request);
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ApiError('invalid_request', 'The multipart body could not be read.');
  }
  const raw = form.get('metadata');
  if (typeof raw !== 'string') {
    throw new ApiError('invalid_request', 'The form needs a JSON field named metadata.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid_request', 'The metadata field must be JSON.');
  }
  const metadata = validate(schema, parsed, 'metadata');
  const files = new Map<string, UploadedFile[]>();
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') continue;
    const list = files.get(field) ?? [];
    list.push({
      fileName: value.name,
      contentType: value.type,
      data: Buffer.from(await value.arrayBuffer()),
    });
    files.set(field, list);
  }
  return { metadata, files: (field) => files.get(field) ?? [] };
}
