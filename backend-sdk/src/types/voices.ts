/** Output formats of the service; the numeric suffix of `pcm_*` is the sample rate. */
export type OutputFormat =
  | 'pcm_16000'
  | 'pcm_24000'
  | 'pcm_44100'
  | 'pcm_48000'
  | 'aac_44100_128'
  | 'opus_48000_64';

/** One entry of `GET /v1/voices`. */
export interface Voice {
  /** Service-owned id; pass it as `voice_id`. */
  id: string;
  name: string;
  /** Formats this voice delivers. */
  output_formats: OutputFormat[];
  /** `tts`, and `voice_tags` when expressive cues are supported. */
  capabilities: ('tts' | 'voice_tags')[];
  /** True for voices meant for adult content. */
  nsfw: boolean;
}

/** Answer of `GET /v1/voices`. */
export interface VoiceList {
  voices: Voice[];
}

/** One entry of `GET /v1/avatars`. */
export interface Avatar {
  /** Pass as an Agent's `avatar_id`. */
  id: string;
  name: string;
  /** Preview image (PNG); public. */
  image_url: string;
  /** Idle animation, when the avatar has one. */
  idle_video_url?: string;
}

/** Answer of `GET /v1/avatars`. */
export interface AvatarList {
  avatars: Avatar[];
}
