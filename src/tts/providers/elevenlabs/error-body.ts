import type { VendorErrorInfo } from '../upstream/pcm-stream.ts';

/**
 * Reads an ElevenLabs error body: `{ "detail": { "status": "invalid_api_key",
 * "message": "..." } }`, the validation form `{ "detail": [{ "msg": "...", "type": "..." }] }`,
 * or `{ "detail": "..." }`. Anything else (an HTML page from a proxy) yields nothing.
 */
export function parseElevenLabsError(_status: number, body: string): VendorErrorInfo {
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null) return {};
  const detail = (parsed as { detail?: unknown }).detail;
  if (typeof detail === 'string') return { message: detail };
  if (Array.isArray(detail)) {
    const first = detail[0] as { msg?: unknown; type?: unknown } | undefined;
    return {
      code: typeof first?.type === 'string' ? first.type : undefined,
      message: typeof first?.msg === 'string' ? first.msg : undefined,
    };
  }
  if (typeof detail === 'object' && detail !== null) {
    const { status, message } = detail as { status?: unknown; message?: unknown };
    return {
      code: typeof status === 'string' ? status : undefined,
      message: typeof message === 'string' ? message : undefined,
    };
  }
  return {};
}
