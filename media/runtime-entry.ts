import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How to start one of our own modules in a child process or a worker thread. */
export interface RuntimeEntry {
  /** Absolute path of the module file to run. */
  readonly file: string;
  /** `file` as a file: URL (for dynamic imports). */
  readonly url: string;
  /** Node arguments the child needs to load it (the TypeScript loader when run from source). */
  readonly execArgv: readonly string[];
  /** True when running compiled JavaScript (from `dist/`). */
  readonly compiled: boolean;
  /**
   * The file a worker thread starts from: `file` when compiled; from source, the bootstrap
   * that registers tsx in the new thread and then imports `workerData.entry` (`url`).
   */
  readonly threadFile: string;
}

/**
 * The module `baseName` next to the module at `fromUrl`: its compiled `.js` sibling when
 * the caller itself is compiled (production, `dist/`), else the `.ts` source run through
 * tsx (development and tests). One place decides, so a child never runs a different build
 * from its parent.
 *
 * @example
 * const entry = siblingEntry(import.meta.url, 'launcher-main');
 * fork(entry.file, [], { execArgv: [...entry.execArgv] });
 */
export function siblingEntry(fromUrl: string, baseName: string): RuntimeEntry {
  const fromFile = fileURLToPath(fromUrl);
  const compiled = fromFile.endsWith('.js');
  const file = path.join(path.dirname(fromFile), `${baseName}${compiled ? '.js' : '.ts'}`);
  return {
    file,
    url: pathToFileURL(file).href,
    execArgv: compiled ? [] : ['--import', import.meta.resolve('tsx')],
    compiled,
    threadFile: compiled ? file : path.join(import.meta.dirname, 'worker', 'bootstrap.mjs'),
  };
}
