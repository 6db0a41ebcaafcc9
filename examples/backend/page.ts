/**
 * The example's browser page: `page/index.html` and `page/app.ts` bundled with client-sdk
 * (and livekit-client inside) into one ES module, once at start, in memory. esbuild is the
 * bundler client-sdk's own build uses (installed as tsx's dependency).
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const PAGE_DIR = path.join(import.meta.dirname, 'page');

/** The page's two files, ready to serve. */
export interface PageAssets {
  html: Buffer;
  script: Buffer;
}

interface EsbuildOutput {
  outputFiles: { path: string; contents: Uint8Array }[];
}

interface Esbuild {
  build(options: Record<string, unknown>): Promise<EsbuildOutput>;
}

/**
 * Bundles the page. Throws when the bundle fails (a type error is caught by `tsc`, not here).
 *
 * @example
 * ```ts
 * const page = await buildPage();
 * response.end(page.script);
 * ```
 */
export async function buildPage(): Promise<PageAssets> {
  const require = createRequire(import.meta.url);
  const esbuild = (await import(
    require.resolve('esbuild', { paths: [require.resolve('tsx')] })
  )) as Esbuild;
  const result = await esbuild.build({
    entryPoints: [path.join(PAGE_DIR, 'app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    outfile: 'app.js',
    logLevel: 'error',
  });
  const script = result.outputFiles.find((file) => file.path.endsWith('app.js'));
  if (!script) throw new Error('the page bundle produced no app.js');
  return {
    html: await readFile(path.join(PAGE_DIR, 'index.html')),
    script: Buffer.from(script.contents),
  };
}
