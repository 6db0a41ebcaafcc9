import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of this checkout (the one holding `client-sdk/`), found from this module both
 * in the sources and in `dist/`; the working directory when there is none above it. Built
 * files the api serves (the demo page, the dashboard) and the compiled engine live under it.
 */
export function checkoutRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'client-sdk', 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
