import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** The installed Kokoro files (written by scripts/install-kokoro.sh). */
export interface KokoroFiles {
  readonly dir: string;
  readonly modelPath: string;
  /** sha256 of the model file recorded at install; checked before the model is loaded. */
  readonly modelSha256: string;
  readonly voicesDir: string;
  /** sha256 of each style-vector file by voice key (`af_heart`). */
  readonly voiceSha256: Readonly<Record<string, string>>;
}

/** The install step that provides the files, named in every message about them. */
export const KOKORO_INSTALL_COMMAND = 'bash scripts/install-kokoro.sh';

/** Thrown when the Kokoro files are not installed (or the manifest is unreadable). */
export class KokoroFilesMissingError extends Error {
  constructor(dir: string, detail: string) {
    super(
      `Kokoro neural voices are not installed in ${dir} (${detail}); run \`${KOKORO_INSTALL_COMMAND}\``,
    );
    this.name = 'KokoroFilesMissingError';
  }
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/awp/kokoro`, where the install script puts the files. */
export function defaultKokoroDir(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(cache, 'awp', 'kokoro');
}

interface Manifest {
  model: { file: string; sha256: string; outputs?: string[] };
  voices: Record<string, string>;
}

/**
 * Reads the manifest in `dir` and checks that the files it names exist. Cheap (no
 * hashing): the model's checksum is verified by the inference worker before loading.
 */
export function locateKokoroFiles(dir: string): KokoroFiles {
  const manifestPath = path.join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new KokoroFilesMissingError(dir, 'no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  } catch (error) {
    throw new KokoroFilesMissingError(dir, `manifest.json unreadable: ${(error as Error).message}`);
  }
  // Word timings read the durations the model predicts: a model installed without that
  // output is an older installation, upgraded by the install step.
  if (!manifest.model?.outputs?.includes('durations')) {
    throw new KokoroFilesMissingError(dir, 'the installed model has no durations output');
  }
  const modelPath = path.join(dir, manifest.model?.file ?? '');
  if (!manifest.model?.file || !existsSync(modelPath)) {
    throw new KokoroFilesMissingError(dir, 'model file missing');
  }
  const voicesDir = path.join(dir, 'voices');
  const voiceSha256 = manifest.voices ?? {};
  for (const key of Object.keys(voiceSha256)) {
    if (!existsSync(path.join(voicesDir, `${key}.bin`))) {
      throw new KokoroFilesMissingError(dir, `voice file ${key}.bin missing`);
    }
  }
  return { dir, modelPath, modelSha256: manifest.model.sha256, voicesDir, voiceSha256 };
}
