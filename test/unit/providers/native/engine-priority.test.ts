import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineHelper } from '../../../../src/tts/providers/native/helper/engine-helper.ts';
import { defaultEngineHelperPath } from '../../../../src/tts/providers/native/index.ts';
import { childProcesses, longText } from './processes.ts';

// The service's event loop gets a CPU before synthesis does: each utterance process runs
// 5 nice levels below the engine (awp-espeak-engine.c, UTTERANCE_NICE).

const helperPath = defaultEngineHelperPath();
if (helperPath === undefined) {
  throw new Error('the long-lived engine is not built: run bash scripts/build-engine.sh');
}
const helpers: EngineHelper[] = [];

afterEach(() => {
  for (const helper of helpers.splice(0)) helper.kill();
});

/** A process's nice value (field 19 of /proc/PID/stat). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('awp-espeak-engine priority', () => {
  it('synthesizes 5 nice levels below the engine, whose own priority and template stay as started', async () => {
    const helper = new EngineHelper(helperPath);
    helpers.push(helper);
    const engine = helper.pid as number;
    let seen: { template: number; utterance: number } | undefined;
    for await (const _ of helper.synthesize(
      { voice: 'en-us+f3', wordsPerMinute: 175, pitch: 50, text: longText(60) },
      new AbortController().signal,
    )) {
      const [template] = childProcesses(engine);
      const [utterance] = template === undefined ? [] : childProcesses(template);
      if (seen === undefined && template !== undefined && utterance !== undefined) {
        seen = { template: niceOf(template), utterance: niceOf(utterance) };
      }
    }
    const started = niceOf(process.pid);
    expect(niceOf(engine)).toBe(started);
    expect(seen).toEqual({ template: started, utterance: Math.min(19, started + 5) });
  });
});
