import type { VendorErrorInfo } from '../upstream/pcm-stream.ts';

/**
 * Reads a Fish Audio error body: `{ "status": 401, "message": "Invalid Token" }`, or a
 * 422 validation list `[{ "loc": [...], "type": "...", "msg": "..." }]`. A body that is not
 * JSON (a parse error or an edge proxy page) yields its first line as the message.
 */
export function parseFishAudioError(_status: number, body: string): VendorErrorInfo {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const line = body.trim().split('\n', 1)[0];
    return line === undefined || line === '' || line.startsWith('<') ? {} : { message: line };
  }
  if (Array.isArray(parsed)) {
    const first = parsed[0] as { msg?: unknown; type?: unknown } | undefined;
    return {
      code: typeof first?.type === 'string' ? first.type : undefined,
      message: typeof first?.msg === 'string' ? first.msg : undefined,
    };
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const { message, code } = parsed as { message?: unknown; code?: unknown };
    return {
      code: typeof code === 'string' ? code : undefined,
      message: typeof message === 'string' ? message : undefined,
    };
  }
  return {};
}
