// Ships the shared protocol inside a build's dist/: compiles protocol/src (tsc, type-checked,
// with declarations) into <dist>/protocol/, then points every `@awp/protocol` import of the
// compiled modules and declarations in <dist> at it. A published SDK so depends on nothing
// of this repository, and the service's dist/ runs without TypeScript.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const PROTOCOL = path.resolve(import.meta.dirname, '..');
/** The package name in import specifiers, either quote. */
const SPECIFIER = /(['"])@awp\/protocol\1/g;
const COMPILED = /\.(js|d\.ts)$/;

function* compiledFiles(dir, skip) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (full !== skip && entry.name !== 'node_modules') yield* compiledFiles(full, skip);
    } else if (entry.isFile() && COMPILED.test(entry.name)) {
      yield full;
    }
  }
}

/** `dist/protocol/index.js` as a relative specifier from `file`'s folder. */
function specifierFrom(file, entry) {
  const relative = path.relative(path.dirname(file), entry).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/**
 * Compiles the protocol into `<dist>/protocol/` and rewrites the `@awp/protocol` imports of
 * the other compiled files under `dist`. Throws on failure; returns the files rewritten.
 */
export function shipProtocol(dist, { quiet = false } = {}) {
  const target = path.join(dist, 'protocol');
  rmSync(target, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(
    process.execPath,
    [tsc, '-p', path.join(PROTOCOL, 'tsconfig.json'), '--outDir', target],
    { cwd: PROTOCOL, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit', encoding: 'utf8' },
  );
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`the protocol TypeScript build failed (exit ${result.status})`);
  }
  const entry = path.join(target, 'index.js');
  const rewritten = [];
  for (const file of compiledFiles(dist, target)) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@awp/protocol')) continue;
    const quoted = (_match, quote) => `${quote}${specifierFrom(file, entry)}${quote}`;
    writeFileSync(file, text.replace(SPECIFIER, quoted));
    rewritten.push(file);
  }
  return rewritten;
}
