#!/usr/bin/env node
// Builds the server SDK package into backend-sdk/dist/: ESM modules, their declarations and
// source maps (tsc, type-checked), which the package `exports` point at, with the shared
// protocol compiled into dist/protocol/ so the package depends on nothing of this repository.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { shipProtocol } from '../../protocol/scripts/ship.mjs';

const PACKAGE = path.resolve(import.meta.dirname, '..');
const DIST = path.join(PACKAGE, 'dist');
const require = createRequire(import.meta.url);

/** Compiles the package; throws on failure. Returns the elapsed milliseconds. */
export function buildBackendSdk({ quiet = false } = {}) {
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
    throw new Error(`the backend SDK TypeScript build failed (exit ${result.status})`);
  }
  shipProtocol(DIST, { quiet });
  return Date.now() - started;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    const ms = buildBackendSdk();
    process.stdout.write(`[backend-sdk] dist/ ready in ${(ms / 1000).toFixed(1)} s\n`);
  } catch (error) {
    process.stderr.write(`[backend-sdk] ${error.message}\n`);
    process.exit(1);
  }
}
