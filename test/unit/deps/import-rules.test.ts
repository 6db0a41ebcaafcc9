// The project's import rules (.dependency-cruiser.cjs, `npm run deps` in `npm run check`)
// run on small trees laid out like the repository: each offending tree fails the check and
// names its rule, the clean one passes.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

/** An api module, the boundary module and a worker that imports only the boundary. */
const CLEAN_TREE: Record<string, string> = {
  'src/errors.ts': 'export class ApiError extends Error {}\n',
  'src/worker-boundary/index.ts': "export { ApiError } from '../errors.ts';\n",
  'worker/agent.ts':
    "import { ApiError } from '../src/worker-boundary/index.ts';\nexport const e = ApiError;\n",
};

let dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

/** Writes `files` into a fresh folder and runs the check on it the way `npm run deps` does. */
async function checkTree(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'awp-deps-'));
  dirs.push(dir);
  const all = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        noEmit: true,
      },
    }),
    ...CLEAN_TREE,
    ...files,
  };
  for (const [name, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return new Promise((resolve) => {
    execFile(
      DEPCRUISE,
      ['--config', CONFIG, '--output-type', 'err', 'src', 'worker'],
      { cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? ((error as { code?: number }).code ?? -1) : 0;
        resolve({ code: typeof code === 'number' ? code : -1, out: `${stdout}${stderr}` });
      },
    );
  });
}

describe('the import rules', () => {
  it('pass a worker that reaches the api through the boundary module', async () => {
    const result = await checkTree({});
    expect(result).toEqual({ code: 0, out: expect.stringContaining('no dependency violations') });
  });

  it('fail a worker import of the api outside the boundary module', async () => {
    const result = await checkTree({
      'worker/agent.ts':
        "import { ApiError } from '../src/errors.ts';\nexport const e = ApiError;\n",
    });
    expect(result.code).toBe(1);
    expect(result.out).toContain('worker-through-boundary: worker/agent.ts → src/errors.ts');
  });

  it('fail an import cycle made only of type imports', async () => {
    const result = await checkTree({
      'src/ratelimit/limiter.ts':
        "import type { Decision } from './local.ts';\nexport interface Limit { last?: Decision }\n",
      'src/ratelimit/local.ts':
        "import type { Limit } from './limiter.ts';\nexport interface Decision { limit?: Limit }\n",
    });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(
      /no-circular: src\/ratelimit\/limiter\.ts →\s+src\/ratelimit\/local\.ts →\s+src\/ratelimit\/limiter\.ts/,
    );
  });
});
