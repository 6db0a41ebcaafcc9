// The breaking-change gate of the public API (`npm run openapi:gate`, run by `npm run check`
// and `npm test`). Policy: docs/api-changelog.md.
//
// 1. docs/api-changelog.md starts with an entry for the document's `info.version`.
// 2. The document is compared with the one at the merge base of HEAD and `main` using
//    oasdiff (scripts/install-oasdiff.sh). A breaking change passes only when `info.version`
//    has a new major or minor over the base's.
//
// `--base FILE`, `--revision FILE` and `--changelog FILE` replace the files read from git
// and the working tree (the gate's own test uses them).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOCUMENT_PATH = 'docs/openapi.json';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    revision: { type: 'string', default: path.join(ROOT, DOCUMENT_PATH) },
    changelog: { type: 'string', default: path.join(ROOT, 'docs/api-changelog.md') },
  },
});

function fail(message: string): never {
  console.error(`openapi-gate: FAILED: ${message}`);
  process.exit(1);
}

function versionOf(file: string): string {
  const document = JSON.parse(readFileSync(file, 'utf8')) as { info?: { version?: unknown } };
  const version = document.info?.version;
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+$/.test(version)) {
    fail(`${file}: info.version must be MAJOR.MINOR.PATCH, got ${JSON.stringify(version)}`);
  }
  return version;
}

/** The changelog's `Current version: **X.Y.Z**` line and its first entry (`## X.Y.Z`). */
function changelogVersions(file: string): { current?: string; first?: string } {
  const text = readFileSync(file, 'utf8');
  return {
    current: /^Current version: \*\*(\d+\.\d+\.\d+)\*\*/m.exec(text)?.[1],
    first: /^## (\d+\.\d+\.\d+)\b/m.exec(text)?.[1],
  };
}

/** True when `next` has a new major, or the same major and a new minor. */
function bumpsMajorOrMinor(previous: string, next: string): boolean {
  const [pMajor = 0, pMinor = 0] = previous.split('.').map(Number);
  const [nMajor = 0, nMinor = 0] = next.split('.').map(Number);
  return nMajor > pMajor || (nMajor === pMajor && nMinor > pMinor);
}

function git(...gitArgs: string[]): string | undefined {
  // The document is over a megabyte: spawnSync's default 1 MiB output buffer would cut it.
  const result = spawnSync('git', gitArgs, {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return result.status === 0 ? result.stdout : undefined;
}

/**
 * The document at the merge base of HEAD and `main` (or `origin/main`), written to a
 * temporary file; a reason string when there is none to compare with.
 */
function baseDocument(directory: string): { file: string; label: string } | { skip: string } {
  const branch = ['main', 'origin/main'].find((ref) => git('rev-parse', '--verify', '-q', ref));
  if (!branch) return { skip: 'no `main` or `origin/main` branch in this clone' };
  const base = git('merge-base', 'HEAD', branch)?.trim();
  if (!base) return { skip: `HEAD and ${branch} have no common history (a shallow clone?)` };
  const text = git('show', `${base}:${DOCUMENT_PATH}`);
  if (text === undefined) {
    return { skip: `${DOCUMENT_PATH} does not exist at the merge base ${base.slice(0, 12)}` };
  }
  const file = path.join(directory, 'base.json');
  writeFileSync(file, text);
  return {
    file,
    label: `${DOCUMENT_PATH} at the merge base of HEAD and ${branch} (${base.slice(0, 12)})`,
  };
}

const version = versionOf(args.revision);
const logged = changelogVersions(args.changelog);
if (logged.current !== version || logged.first !== version) {
  fail(
    `${args.changelog} must start with the current version ${version}: its "Current version: **X**" ` +
      `line says ${logged.current ?? 'nothing'} and its first entry is ${logged.first ?? 'missing'}; ` +
      `add "## ${version}" with what changed`,
  );
}

const directory = mkdtempSync(path.join(tmpdir(), 'awp-openapi-gate-'));
try {
  const base = args.base ? { file: args.base, label: args.base } : baseDocument(directory);
  if ('skip' in base) {
    console.log(`openapi-gate: breaking-change check skipped: ${base.skip}`);
    process.exit(0);
  }
  if (readFileSync(base.file, 'utf8') === readFileSync(args.revision, 'utf8')) {
    // Nothing to compare (a clone of main itself): no need to build oasdiff.
    console.log(
      `openapi-gate: no breaking change against ${base.label}: the document is identical`,
    );
    process.exit(0);
  }
  const oasdiff = execFileSync('bash', [path.join(ROOT, 'scripts/install-oasdiff.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const diff = spawnSync(
    oasdiff,
    ['breaking', base.file, args.revision, '--fail-on', 'ERR', '--color', 'never'],
    { encoding: 'utf8' },
  );
  if (diff.status !== 0 && diff.status !== 1) {
    fail(`oasdiff did not run (exit ${diff.status}): ${diff.stderr}`);
  }
  process.stdout.write(diff.stdout);
  const baseVersion = versionOf(base.file);
  if (diff.status === 0) {
    console.log(`openapi-gate: no breaking change against ${base.label}`);
  } else if (bumpsMajorOrMinor(baseVersion, version)) {
    console.log(
      `openapi-gate: breaking changes against ${base.label} accepted: info.version ${baseVersion} -> ${version}, listed in ${args.changelog}`,
    );
  } else {
    fail(
      `breaking changes against ${base.label} (above) need a new major or minor info.version ` +
        `(now ${version}, base ${baseVersion}) and an entry for it at the top of ${args.changelog} ` +
        '(policy: docs/api-changelog.md); or keep the old behaviour',
    );
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
