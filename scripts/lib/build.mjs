// The release build: TypeScript of the service, jobs process, operator tool and agent
// worker compiled to JavaScript in dist/ (source maps on), plus the runtime files that are
// not TypeScript and the shared protocol (dist/protocol/, which their `@awp/protocol`
// imports are pointed at); then the packages (client-sdk, react after it, backend-sdk) and the
// dashboard. `ensureBuilt()` rebuilds only when dist/ is missing or was built from other
// sources than the current ones, so `npm start`, the `awp` bin and the tests always run
// current compiled code.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { shipProtocol } from '../../protocol/scripts/ship.mjs';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.build-stamp');
const SOURCE_DIRS = ['src', 'media', 'worker'];
/** The shared protocol, compiled into dist/protocol/ and into each SDK's dist/. */
const PROTOCOL_DIRS = ['protocol/src', 'protocol/scripts'];
const PROTOCOL_FILES = ['protocol/package.json', 'protocol/tsconfig.json'];
const CONFIG_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];
/** Runtime files copied as they are (everything else in the source folders is TypeScript). */
const ASSET = /\.(py|json|svg|png|jpg|webp|html|css|txt|wasm|onnx)$/;
const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', 'dashboard']);
/** The client SDK (and the demo page the api serves) builds into client-sdk/dist/. */
const CLIENT_SDK_DIRS = ['client-sdk/src', 'client-sdk/demo', 'client-sdk/scripts'];
const CLIENT_SDK_FILES = ['client-sdk/package.json', 'client-sdk/tsconfig.json'];
/** The React package builds into react/dist/, against client-sdk/dist/'s declarations. */
const REACT_DIRS = ['react/src', 'react/scripts', 'react/types'];
const REACT_FILES = ['react/package.json', 'react/tsconfig.json'];
/** The server SDK builds into backend-sdk/dist/ (its package `exports`). */
const BACKEND_SDK_DIRS = ['backend-sdk/src', 'backend-sdk/scripts'];
const BACKEND_SDK_FILES = ['backend-sdk/package.json', 'backend-sdk/tsconfig.json'];
/** The operator dashboard (React, bundled by Vite) builds into dist/dashboard/. */
const DASHBOARD_DIR = 'dashboard';

function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(full);
    } else if (entry.isFile()) {
      yield full;
    }
  }
}

function sourceFiles() {
  const files = CONFIG_FILES.map((f) => path.join(ROOT, f)).filter((f) => existsSync(f));
  for (const dir of SOURCE_DIRS) files.push(...walk(path.join(ROOT, dir)));
  for (const dir of PROTOCOL_DIRS) files.push(...walk(path.join(ROOT, dir)));
  files.push(...PROTOCOL_FILES.map((f) => path.join(ROOT, f)).filter((f) => existsSync(f)));
  for (const dir of CLIENT_SDK_DIRS) files.push(...walk(path.join(ROOT, dir)));
  files.push(...CLIENT_SDK_FILES.map((f) => path.join(ROOT, f)).filter((f) => existsSync(f)));
  for (const dir of REACT_DIRS) files.push(...walk(path.join(ROOT, dir)));
  files.push(...REACT_FILES.map((f) => path.join(ROOT, f)).filter((f) => existsSync(f)));
  for (const dir of BACKEND_SDK_DIRS) files.push(...walk(path.join(ROOT, dir)));
  files.push(...BACKEND_SDK_FILES.map((f) => path.join(ROOT, f)).filter((f) => existsSync(f)));
  files.push(...walk(path.join(ROOT, DASHBOARD_DIR)));
  return files;
}

/**
 * A hash of every source and config file's path and content. The stamp keeps the one the
 * last build started from: a file edited while that build ran, a checkout or merge, or a
 * dist/ copied from another checkout all leave a stamp that no longer matches, where file
 * times could say the build is newer than its sources.
 */
export function sourceFingerprint() {
  const hash = createHash('sha256');
  for (const file of sourceFiles().sort()) {
    hash.update(`${path.relative(ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when dist/ is missing or was built from other sources than the current ones. */
export function buildIsStale() {
  if (!existsSync(STAMP)) return true;
  return readFileSync(STAMP, 'utf8').trim() !== sourceFingerprint();
}

/** Compiles with tsc (type-checked) and copies the runtime assets. Throws on failure. */
export function build({ quiet = false } = {}) {
  const started = Date.now();
  const fingerprint = sourceFingerprint();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`the TypeScript build failed (exit ${result.status})`);
  }
  shipProtocol(DIST, { quiet });
  for (const dir of SOURCE_DIRS) {
    for (const file of walk(path.join(ROOT, dir))) {
      if (!ASSET.test(file) || file.endsWith('.d.ts')) continue;
      const target = path.join(DIST, path.relative(ROOT, file));
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
  }
  const sdk = spawnSync(process.execPath, [path.join(ROOT, 'client-sdk/scripts/build.mjs')], {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (sdk.status !== 0) {
    if (quiet) process.stderr.write(`${sdk.stdout ?? ''}${sdk.stderr ?? ''}`);
    throw new Error(`the client SDK build failed (exit ${sdk.status})`);
  }
  const react = spawnSync(process.execPath, [path.join(ROOT, 'react/scripts/build.mjs')], {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
  });
  if (react.status !== 0) {
    if (quiet) process.stderr.write(`${react.stdout ?? ''}${react.stderr ?? ''}`);
    throw new Error(`the React package build failed (exit ${react.status})`);
  }
  const backendSdk = spawnSync(
    process.execPath,
    [path.join(ROOT, 'backend-sdk/scripts/build.mjs')],
    { cwd: ROOT, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', encoding: 'utf8' },
  );
  if (backendSdk.status !== 0) {
    if (quiet) process.stderr.write(`${backendSdk.stdout ?? ''}${backendSdk.stderr ?? ''}`);
    throw new Error(`the backend SDK build failed (exit ${backendSdk.status})`);
  }
  buildDashboard(quiet);
  writeFileSync(STAMP, `${fingerprint}\n`);
  return Date.now() - started;
}

/** Type-checks the dashboard, then bundles it with Vite into dist/dashboard/. */
function buildDashboard(quiet) {
  const require = createRequire(import.meta.url);
  const steps = [
    ['type check', [require.resolve('typescript/bin/tsc'), '-p', `${DASHBOARD_DIR}/tsconfig.json`]],
    [
      'bundle',
      [
        path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js'),
        'build',
        '--config',
        `${DASHBOARD_DIR}/vite.config.ts`,
      ],
    ],
  ];
  for (const [name, args] of steps) {
    const result = spawnSync(process.execPath, args, {
      cwd: ROOT,
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      encoding: 'utf8',
    });
    if (result.status !== 0) {
      if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
      throw new Error(`the dashboard ${name} failed (exit ${result.status})`);
    }
  }
}

/** Builds when needed; says so on stderr (stdout stays clean for `--json` output). */
export function ensureBuilt() {
  if (!buildIsStale()) return;
  process.stderr.write('[build] compiling to dist/ ...\n');
  const ms = build({ quiet: true });
  process.stderr.write(`[build] done in ${(ms / 1000).toFixed(1)} s\n`);
}
