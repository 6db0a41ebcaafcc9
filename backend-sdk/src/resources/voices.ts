import { type HttpContext, send } from '../internal/http.ts';
import type { RequestOptions } from '../options.ts';
import type { AvatarList, VoiceList } from '../types/voices.ts';

/** `GET /v1/voices`: the voice catalog of the key's workspace and environment. */
export class Voices {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * The voices enabled for the calling key. Fetch again after switching environment.
   *
   * @example
   * ```ts
   * const { voices } = await client.voices.list();
   * const tagged = voices.filter((v) => v.capabilities.includes('voice_tags') && !v.nsfw);
   * ```
   */
  async list(options?: RequestOptions): Promise<VoiceList> {
    const call = { method: 'GET', path: '/v1/voices', expect: 'json', idempotent: true } as const;
    return (await send<VoiceList>(this.http, call, options)).body;
  }
}

/** `GET /v1/avatars` and the public preview pictures. */
export class Avatars {
  /** @internal */
  constructor(private readonly http: HttpContext) {}

  /**
   * The built-in avatar catalog Agents choose from.
   *
   * @example
   * ```ts
   * const { avatars } = await client.avatars.list();
   * await client.agents.update(agentId, { avatar_id: avatars[0]!.id });
   * ```
   */
  async list(options?: RequestOptions): Promise<AvatarList> {
    const call = { method: 'GET', path: '/v1/avatars', expect: 'json', idempotent: true } as const;
    return (await send<AvatarList>(this.http, call, options)).body;
  }

  /**
   * The avatar's preview picture (PNG bytes).
   *
   * @example
   * ```ts
   * const png = await client.avatars.preview('avatar_id');
   * ```
   */
  async preview(avatarId: string, options?: RequestOptions): Promise<Uint8Array> {
    const call = {
      method: 'GET',
      path: `/v1/avatars/${encodeURIComponent(avatarId)}/preview`,
      expect: 'bytes',
      idempotent: true,
    } as const;
    return (await send<Uint8Array>(this.http, call, options)).body;
  }
}
