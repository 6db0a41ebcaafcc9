import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkoutRoot } from '../../../../system/checkout-root.ts';

/** Where scripts/build-engine.sh writes the compiled engine, relative to the package root. */
const RELATIVE_PATH = path.join('.cache', 'native', 'awp-espeak-engine');

/**
 * The compiled long-lived engine of this checkout (`<package root>/.cache/native/
 * awp-espeak-engine`), found from this module both in the sources and in `dist/`; undefined
 * when it was not built (scripts/setup.sh builds it).
 */
export function defaultEngineHelperPath(): string | undefined {
  const file = path.join(checkoutRoot(), RELATIVE_PATH);
  return existsSync(file) ? file : undefined;
}
