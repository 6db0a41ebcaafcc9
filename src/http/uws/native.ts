import type * as Uws from 'uWebSockets.js';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The uWebSockets.js module. The package silently falls back to a slow pure-JS server
 * when its native binary fails to load; `nativeBindingLoaded()` tells which one this is.
 */
export const uws: typeof Uws = require('uWebSockets.js');

/** True when the native uWS binary (a `.node` file of the package) is the one in use. */
export function nativeBindingLoaded(): boolean {
  return Object.keys(require.cache).some(
    (file) => file.includes('uWebSockets.js') && file.endsWith('.node'),
  );
}
