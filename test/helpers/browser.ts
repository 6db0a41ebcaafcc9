// Headless Chromium for browser tests (flags from ENVIRONMENT.md), with a fake microphone
// that plays a WAV file. One browser per test file: the machine has two shared cores.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TestBrowser {
  browser: Browser;
  /** The WAV file the fake microphone plays (a 440 Hz tone, looped by Chromium). */
  microphoneWav: string;
  close(): Promise<void>;
}

/** A mono 16-bit WAV of a tone: what the fake microphone "hears". */
export function toneWav(durationMs = 2000, sampleRateHz = 48_000, frequencyHz = 440): Buffer {
  const samples = Math.round((durationMs / 1000) * sampleRateHz);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const value = Math.sin((2 * Math.PI * frequencyHz * i) / sampleRateHz) * 0.4 * 32767;
    data.writeInt16LE(Math.round(value), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRateHz, 24);
  header.writeUInt32LE(sampleRateHz * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/**
 * Launches headless Chromium (as root too) with a fake microphone (a tone, or the WAV file
 * given as `microphone`; Chromium loops it) and autoplay allowed.
 * Playwright gives every launch a fresh temporary profile (it refuses `--user-data-dir`).
 */
export async function launchBrowser(options: { microphone?: Buffer } = {}): Promise<TestBrowser> {
  const dir = mkdtempSync(path.join(tmpdir(), 'awp-browser-'));
  const microphoneWav = path.join(dir, 'microphone.wav');
  writeFileSync(microphoneWav, options.microphone ?? toneWav());
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphoneWav}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  return {
    browser,
    microphoneWav,
    close: async () => {
      await browser.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
