// The breaking-change gate (scripts/openapi-gate.ts, run by `npm run check` and `npm test`):
// oasdiff compares the committed document with a base one, and a breaking change passes only
// with a new major or minor `info.version` at the top of the changelog.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../../scripts/openapi-file.ts';
import { ROOT } from '../../helpers/server.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test edits arbitrary parts of the document.
type Document = any;

describe('the OpenAPI breaking-change gate', () => {
  let directory: string;
  const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Document;
  const version = committed.info.version as string;

  beforeAll(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'awp-gate-test-'));
    // Builds or finds the cached oasdiff once, before the runs below.
    const install = spawnSync('bash', ['scripts/install-oasdiff.sh'], { cwd: ROOT });
    expect(install.status, install.stderr.toString()).toBe(0);
  }, 600_000);

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  /** Runs the gate on `revision` against `base` with a changelog starting at `logged`. */
  function gate(options: { base?: Document; revision: Document; logged: string }) {
    const file = (name: string, text: string) => {
      const target = path.join(directory, name);
      writeFileSync(target, text);
      return target;
    };
    const args = [
      '--import',
      'tsx',
      'scripts/openapi-gate.ts',
      '--revision',
      file('revision.json', JSON.stringify(options.revision)),
      '--changelog',
      file(
        'changelog.md',
        `# API changelog\n\nCurrent version: **${options.logged}**\n\n## ${options.logged}\n\n- Changed.\n`,
      ),
      ...(options.base ? ['--base', file('base.json', JSON.stringify(options.base))] : []),
    ];
    const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  /** The committed document without `GET /v1/voices`, at `newVersion`. */
  function withoutVoices(newVersion: string): Document {
    const revision = structuredClone(committed);
    delete revision.paths['/v1/voices'];
    revision.info.version = newVersion;
    return revision;
  }

  it('passes the committed document against itself', () => {
    const run = gate({ base: committed, revision: committed, logged: version });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('openapi-gate: no breaking change against');
    expect(run.stdout).toContain('the document is identical');
    expect(run.status).toBe(0);
  });

  it('passes an addition without a new version', () => {
    const revision = structuredClone(committed);
    revision.paths['/v1/extra'] = committed.paths['/v1/voices'];
    const run = gate({ base: committed, revision, logged: version });
    expect(run.stdout).toContain('openapi-gate: no breaking change against');
    expect(run.stdout).not.toContain('the document is identical');
    expect(run.status).toBe(0);
  });

  it('fails a breaking change at the same or a patch version', () => {
    for (const next of [version, version.replace(/\.\d+$/, '.9')]) {
      const run = gate({ base: committed, revision: withoutVoices(next), logged: next });
      expect(run.stdout).toContain('[api-path-removed-without-deprecation]');
      expect(run.stdout).toContain('in API GET /v1/voices');
      expect(run.stderr).toContain('need a new major or minor info.version');
      expect(run.status).toBe(1);
    }
  });

  it('passes a breaking change with a new minor or major version listed first in the changelog', () => {
    const [major = 0, minor = 0] = version.split('.').map(Number);
    for (const next of [`${major}.${minor + 1}.0`, `${major + 1}.0.0`]) {
      const run = gate({ base: committed, revision: withoutVoices(next), logged: next });
      expect(run.stdout).toContain('[api-path-removed-without-deprecation]');
      expect(run.stdout).toContain(`accepted: info.version ${version} -> ${next}`);
      expect(run.status).toBe(0);
    }
  });

  it('fails when the changelog does not start with the current version', () => {
    const [major = 0, minor = 0] = version.split('.').map(Number);
    const next = `${major}.${minor + 1}.0`;
    const run = gate({ base: committed, revision: withoutVoices(next), logged: version });
    expect(run.stderr).toContain(`must start with the current version ${next}`);
    expect(run.status).toBe(1);
  });

  it('compares with the merge base of HEAD and main, or says why it cannot', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/openapi-gate.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.stdout).toMatch(
      /openapi-gate: (no breaking change against docs\/openapi\.json at the merge base|breaking changes against docs\/openapi\.json at the merge base .* accepted|breaking-change check skipped: .+)/,
    );
    expect(run.status).toBe(0);
  });
});
