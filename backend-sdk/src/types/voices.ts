import type { ResponseJson } from './openapi.ts';

/**
 * Answer of `GET /v1/voices`. Each voice: `id` (pass it as `voice_id`), `name`,
 * `output_formats` it delivers, `capabilities` (`tts`, and `voice_tags` when expressive cues
 * are supported), `nsfw` (true for voices meant for adult content).
 */
export type VoiceList = ResponseJson<'listVoices', 200>;

/** One entry of `GET /v1/voices`. */
export type Voice = VoiceList['voices'][number];

/** Output formats of the service; the numeric suffix of `pcm_*` is the sample rate. */
export type OutputFormat = Voice['output_formats'][number];

/** Answer of `GET /v1/avatars`. */
export type AvatarList = ResponseJson<'listAvatars', 200>;

/** One entry of `GET /v1/avatars`: `id` (an Agent's `avatar_id`), `name`, `image_url`. */
export type Avatar = AvatarList['avatars'][number];
