import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The sidecar script, next to this file. The one place that knows where it lives, so a
 * compiled build only has to copy `sidecar.py` beside the compiled `paths.js`.
 */
export function sidecarScriptPath(): string {
  return fileURLToPath(new URL('./sidecar.py', import.meta.url));
}

/** `${XDG_CACHE_HOME:-$HOME/.cache}/awp`, where scripts/install-whisper.sh installs. */
export function awpCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : join(homedir(), '.cache');
  return join(base, 'awp');
}

/** The venv's Python that scripts/install-whisper.sh creates. */
export function defaultSidecarPython(env: NodeJS.ProcessEnv = process.env): string {
  return join(awpCacheDir(env), 'stt-venv', 'bin', 'python');
}

/** The weights directory of one Whisper size as scripts/install-whisper.sh lays it out. */
export function defaultWhisperModelDir(size: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(awpCacheDir(env), 'models', `whisper-${size}`);
}
