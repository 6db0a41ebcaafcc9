// The demo page from a clean `npm start`: scripts/start.sh itself on a fresh DATA_DIR and
// ephemeral ports starts a local Redis, livekit-server --dev, the compiled api (first start:
// development workspace and the starter Agent "guide", DEMO_PAGE on) and one worker. Chromium
// opens /demo, picks the starter Agent, connects and completes one spoken push-to-talk turn
// with its fake microphone; then SIGTERM stops everything start.sh started. The Agent's model
// is the OpenAI chat fake (deterministic), the STT the embedded Whisper.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeOpenAiChat } from '../../fakes/openai-chat.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import { speechWav } from '../../helpers/room-client.ts';
import { ROOT } from '../../helpers/server.ts';
import { freePort } from '../../helpers/worker.ts';

const QUESTION = 'What is the weather like today in Paris?';
const LOUD = 0.01;

declare global {
  interface Window {
    micLevels: { t: number; rms: number }[];
  }
}

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('demo page from npm start (scripts/start.sh)', () => {
  let dataDir: string;
  let llm: FakeOpenAiChat;
  let start: ChildProcess;
  let output = '';
  let browser: TestBrowser;
  let page: Page;
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'awp-start-'));
    llm = await FakeOpenAiChat.start();
    for (const name of [
      'PORT',
      'DEV_PORT',
      'LOCAL_REDIS_PORT',
      'LOCAL_LIVEKIT_PORT',
      'LOCAL_LIVEKIT_RTC_TCP_PORT',
      'LOCAL_LIVEKIT_UDP_PORT',
      'WORKER_HTTP_PORT',
    ]) {
      ports[name] = await freePort();
    }
    // A clean environment: nothing of this machine's services (no REDIS_URL, LIVEKIT_URL or
    // DATABASE_URL), so start.sh takes its embedded defaults.
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      OPENAI_BASE_URL: llm.baseUrl,
      OPENAI_API_KEY: llm.apiKey ?? '',
      LOCAL_LLM: 'false',
      // The neural voices' 550 MB model is not what this test is about; the starter Agent
      // then takes the lite voice (its fallback).
      NATIVE_NEURAL_VOICES: 'false',
      WHISPER_MODEL: 'base',
      WHISPER_THREADS: '1',
      WORKER_IDLE_PROCESSES: '1',
      // The installer is not under test, and must never reinstall the shared node_modules.
      AWP_SKIP_SETUP: '1',
    };
    start = spawn('bash', ['scripts/start.sh'], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    start.stdout?.on('data', collect);
    start.stderr?.on('data', collect);
    await until(
      async () => {
        if (start.exitCode !== null) throw new Error(`start.sh exited:\n${output}`);
        return output.includes('worker registered');
      },
      'the worker to register',
      150_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${output.slice(-4000)}`);
    });

    browser = await launchBrowser({ microphone: await speechWav(QUESTION, 300, 3500) });
    const context = await browser.browser.newContext({ permissions: ['microphone'] });
    page = await context.newPage();
    // Levels of what the fake microphone plays, to hold the talk button over one question.
    await page.addInitScript(() => {
      window.micLevels = [];
      const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = async (constraints) => {
        const stream = await original(constraints);
        const track = stream.getAudioTracks()[0];
        if (track) {
          const audio = new AudioContext();
          const analyser = audio.createAnalyser();
          audio.createMediaStreamSource(new MediaStream([track.clone()])).connect(analyser);
          const buffer = new Float32Array(analyser.fftSize);
          setInterval(() => {
            analyser.getFloatTimeDomainData(buffer);
            let sum = 0;
            for (const v of buffer) sum += v * v;
            window.micLevels.push({ t: performance.now(), rms: Math.sqrt(sum / buffer.length) });
          }, 20);
        }
        return stream;
      };
    });
  }, 240_000);

  afterAll(async () => {
    if (process.env.START_LOG)
      (await import('node:fs')).writeFileSync(process.env.START_LOG, output);
    await browser?.close();
    if (start && start.exitCode === null && start.signalCode === null) {
      // Whatever the test left running: the whole process group.
      try {
        process.kill(-(start.pid as number), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await llm?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const waitForQuietAfterQuestion = (quietMs: number) =>
    page.evaluate(
      async ({ quietMs, loud }) => {
        const started = performance.now();
        while (performance.now() - started < 15_000) {
          const lastLoud = window.micLevels.filter((l) => l.t >= started && l.rms > loud).at(-1);
          if (lastLoud && performance.now() - lastLoud.t >= quietMs) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error('the microphone never went quiet after speech');
      },
      { quietMs, loud: LOUD },
    );

  it('opens /demo, connects to the starter Agent, completes one spoken turn, and stops on SIGTERM', async () => {
    await page.goto(`http://127.0.0.1:${ports.DEV_PORT}/demo`);
    const option = await until(
      async () =>
        page.evaluate(() =>
          [...(document.getElementById('agent') as HTMLSelectElement).options]
            .map((o) => o.text)
            .find((text) => text.startsWith('Guide')),
        ),
      'the starter Agent in the list',
      20_000,
    );
    await page.selectOption('#agent', { label: option });
    // The demo starts in automatic turn-taking; this turn is pushed to talk.
    await page.click('input[name="mode"][value="push-to-talk"]');
    await page.click('#connect');
    await page.waitForFunction(
      () => document.getElementById('connection')?.textContent === 'connected',
      undefined,
      { timeout: 60_000 },
    );
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('#transcript li.agent')].some(
          (li) => li.textContent === 'Hello! I am Guide. Ask me anything, by voice or by text.',
        ),
      undefined,
      { timeout: 60_000 },
    );

    // One spoken turn: hold the talk button over one loop of the question.
    llm.script({ text: ['Sunny', ' and mild', ' in Paris.'] });
    await page.waitForFunction(
      () => !document.getElementById('agent-state')?.classList.contains('speaking'),
      undefined,
      { timeout: 20_000 },
    );
    await waitForQuietAfterQuestion(1000);
    await page.dispatchEvent('#ptt', 'pointerdown');
    await waitForQuietAfterQuestion(700);
    await page.dispatchEvent('#ptt', 'pointerup');
    const lines = await until(
      async () => {
        const items = await page.evaluate(() =>
          [...document.querySelectorAll('#transcript li')].map((li) => ({
            role: li.className,
            text: li.textContent ?? '',
          })),
        );
        return items.some((l) => l.role === 'agent' && l.text === 'Sunny and mild in Paris.')
          ? items
          : undefined;
      },
      'the spoken turn on the page',
      40_000,
    );
    const user = lines.filter((l) => l.role === 'user');
    expect(user).toHaveLength(1);
    expect(user[0]?.text.toLowerCase()).toMatch(/^what is .*paris\W*$/);
    expect(lines.map((l) => l.role)).toEqual(['agent', 'user', 'agent']);
    const error = await page.evaluate(() => document.getElementById('error')?.hidden);
    expect(error).toBe(true);

    // SIGTERM: start.sh stops the api, the worker, livekit-server and Redis, then exits.
    await page.click('#disconnect');
    const exited = new Promise<number | null>((resolve) => start.once('exit', resolve));
    start.kill('SIGTERM');
    await until(
      async () => start.exitCode !== null || start.signalCode !== null,
      'start.sh to exit',
      30_000,
    );
    await exited;
    for (const name of [
      'PORT',
      'DEV_PORT',
      'LOCAL_REDIS_PORT',
      'LOCAL_LIVEKIT_PORT',
      'WORKER_HTTP_PORT',
    ]) {
      expect(await listening(ports[name] as number), `${name} still listening`).toBe(false);
    }
  }, 240_000);
});
