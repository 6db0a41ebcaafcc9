#!/usr/bin/env node
// Builds the React package into react/dist/: ESM modules, their declarations and source maps
// (tsc, type-checked), which the package `exports` point at. It compiles against
// @awp/client-sdk's published declarations, so client-sdk/dist/ is built first.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const DIST = path.join(PACKAGE, 'dist');
const require = createRequire(import.meta.url);

/** Compiles the package; throws on failure. Returns the elapsed milliseconds. */
export function buildReact({ quiet = false } = {}) {
  const started = Date.now();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(PACKAGE, 'tsconfig.json')], {
    cwd: PACKAGE,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`the React package TypeScript build failed (exit ${result.status})`);
  }
  return Date.now() - started;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    const ms = buildReact();
    process.stdout.write(`[react] dist/ ready in ${(ms / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`[react] ${error.message}\n`);
    process.exit(1);
  }
}
