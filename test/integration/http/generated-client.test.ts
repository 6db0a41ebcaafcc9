// A client generated from the committed document, as an integrator would: openapi-typescript
// writes the types of docs/openapi.json, tsc type-checks a small openapi-fetch program
// (test/generated-client/program.ts) against them, and the program runs against the compiled
// api with the OpenAI fake: voices, one-shot speech, an Agent created, published and given
// a session token, a text message, and an error read by its `code`.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { OPENAPI_FILE } from '../../../scripts/openapi-file.ts';
import { DEFAULT_TEXT } from '../../fakes/llm-server.ts';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import {
  afterAll,
  beforeAll,
  DIALECTS,
  describe,
  dialectSuite,
  expect,
  it,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { openTestDatabase, type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import { ROOT, type RunningServer } from '../../helpers/server.ts';
import { budget } from '../../helpers/wait.ts';

// Inside the repository (ignored by git) so the program resolves openapi-fetch from
// node_modules as an integrator's project would.
const CLIENT_DIR = path.join(ROOT, '.cache', `generated-client-${process.pid}`);
const BIN = path.join(ROOT, 'node_modules', '.bin');

/** Generates the types and type-checks the program; throws with tsc's output on errors. */
function generateAndTypeCheck(): void {
  mkdirSync(CLIENT_DIR, { recursive: true });
  execFileSync(
    path.join(BIN, 'openapi-typescript'),
    [OPENAPI_FILE, '-o', path.join(CLIENT_DIR, 'schema.ts')],
    { cwd: ROOT, stdio: 'pipe' },
  );
  copyFileSync(
    path.join(ROOT, 'test/generated-client/program.ts'),
    path.join(CLIENT_DIR, 'program.ts'),
  );
  writeFileSync(
    path.join(CLIENT_DIR, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        allowImportingTsExtensions: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      files: ['program.ts'],
    }),
  );
  // The program is ESM (top-level await), as in a project with `"type": "module"`.
  writeFileSync(path.join(CLIENT_DIR, 'package.json'), '{"type":"module"}\n');
  execFileSync(path.join(BIN, 'tsc'), ['-p', path.join(CLIENT_DIR, 'tsconfig.json')], {
    cwd: CLIENT_DIR,
    stdio: 'pipe',
  });
}

describe('a client generated from docs/openapi.json', () => {
  beforeAll(() => {
    try {
      generateAndTypeCheck();
    } catch (error) {
      const output = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
      throw new Error(`generating or type-checking the client failed:\n${output}\n${error}`);
    }
  }, 180_000);

  afterAll(() => rmSync(CLIENT_DIR, { recursive: true, force: true }));

  it('type-checks the program against the generated types', () => {
    // beforeAll threw otherwise; the program file is what an integrator would write.
    expect(path.basename(CLIENT_DIR)).toMatch(/^generated-client-/);
  });

  describe.each(DIALECTS)('against the compiled api (%s)', (dialect) => {
    dialectSuite(dialect);
    let database: TestDatabase;
    let server: RunningServer;
    let openai: FakeOpenAiChat;
    let ws: SeededWorkspace;

    beforeAll(
      async ({ databases, apis }) => {
        database = await databases.empty(dialect);
        const handle = await openTestDatabase(database);
        try {
          ws = await seedWorkspace(handle);
        } finally {
          await handle.close();
        }
        openai = await FakeOpenAiChat.start();
        server = await apis.start(database, {
          env: {
            OPENAI_BASE_URL: openai.baseUrl,
            OPENAI_API_KEY: openai.apiKey ?? '',
            OPENAI_MODELS: 'gpt-4.1-mini',
            LOCAL_LLM: 'false',
          },
        });
      },
      budget({ servers: 1 }),
    );

    afterAll(async () => {
      await openai?.close();
    });

    it('runs voices, speech, an Agent, a session token, a message and a typed error', async () => {
      // Asynchronously: the language-model fake answers from this process's event loop.
      let output: string;
      try {
        ({ stdout: output } = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', path.join(CLIENT_DIR, 'program.ts')],
          {
            cwd: CLIENT_DIR,
            env: { ...process.env, AWP_BASE_URL: server.url, AWP_API_KEY: ws.productionKey },
            encoding: 'utf8',
          },
        ));
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr ?? '';
        throw new Error(`the program failed:\n${stderr}\napi output:\n${server.output()}`);
      }
      const seen = JSON.parse(output.trim());
      expect(seen.voice).toMatch(/^voice_/);
      expect(seen.speech.status).toBe(200);
      expect(seen.speech.contentType).toBe('audio/ogg; codecs=opus');
      expect(seen.speech.bytes).toBeGreaterThan(1000);
      expect(seen.agent).toEqual({ slug: 'generated-client', llm: ['openai', 'gpt-4.1-mini'] });
      expect(seen.published).toBe(200);
      expect(seen.token).toEqual({
        status: 201,
        jwtParts: 3,
        capabilities: { managed_voice_agent: true, transport: 'webrtc' },
      });
      expect(seen.message).toEqual({
        first: 'Good evening!',
        answer: DEFAULT_TEXT.join(''),
        role: 'assistant',
      });
      expect(seen.error).toEqual({ status: 404, code: 'not_found' });
      expect(openai.requests).toHaveLength(1);
    });
  });
});
