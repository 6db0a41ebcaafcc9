import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineHelper } from '../../../../src/tts/providers/native/helper/engine-helper.ts';
import { defaultEngineHelperPath } from '../../../../src/tts/providers/native/index.ts';
import { collectAudio } from '../pcm-stats.ts';
import { childProcesses } from './processes.ts';

// Every utterance runs in a fork of its voice's template and exits, so what the engine
// has mapped is paid for per utterance. It maps no audio-device library (scripts/build-engine.sh,
// native/espeak-engine/no-audio.c) and still says what espeak-ng says.

const helperPath = defaultEngineHelperPath();
if (helperPath === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
const VOICE = 'en-us+f3';
const SENTENCE = 'Your order has shipped and will arrive on Thursday afternoon.';
const helpers: EngineHelper[] = [];

afterEach(() => {
  for (const helper of helpers.splice(0)) helper.kill();
});

/** The shared objects a process has mapped, by file name. */
function sharedObjects(pid: number): Map<string, string> {
  const files = new Map<string, string>();
  for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
    const file = line.split(/\s+/)[5];
    if (file?.includes('.so')) files.set(path.basename(file), file);
  }
  return files;
}

describe('awp-espeak-engine footprint', () => {
  it('maps its own libpcaudio and no PulseAudio or ALSA, in the engine and its voice template', async () => {
    const helper = new EngineHelper(helperPath);
    helpers.push(helper);
    const audio = await collectAudio(
      helper.synthesize(
        { voice: VOICE, wordsPerMinute: 175, pitch: 50, text: SENTENCE },
        new AbortController().signal,
      ),
    );
    const cli = spawnSync('espeak-ng', ['--stdout', '--stdin', '-b', '1', '-v', VOICE], {
      input: SENTENCE,
    });
    expect(audio.pcm.equals(cli.stdout.subarray(44))).toBe(true);
    const engine = helper.pid as number;
    const [template] = childProcesses(engine);
    expect(template).toBeDefined();
    for (const pid of [engine, template as number]) {
      const objects = sharedObjects(pid);
      expect(objects.get('libpcaudio.so.0')).toBe(
        path.join(path.dirname(helperPath), 'libpcaudio.so.0'),
      );
      const backends = [...objects.keys()].filter((name) => /^lib(pulse|asound)/.test(name));
      expect(backends).toEqual([]);
    }
  });
});
