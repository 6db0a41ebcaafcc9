import { describe, expect, it } from 'vitest';
import type { TurnLatencySummary } from '../../../src/agent-sessions/agent-session-records.ts';
import { TurnLatencies } from '../../../worker/agent-session/turn-latency.ts';

function tracker() {
  const reported: TurnLatencySummary[] = [];
  return { latencies: new TurnLatencies((summary) => reported.push(summary)), reported };
}

describe('TurnLatencies (voice latency of a session’s spoken turns)', () => {
  it('measures the end of speech to the first audio, and takes the stages reported after it', () => {
    const { latencies, reported } = tracker();
    // The greeting speaks before any turn: not a turn.
    latencies.agentStartedSpeaking(500);
    latencies.speechDone('greeting');
    expect(reported).toEqual([]);

    latencies.endOfTurn({
      speechId: 'r1',
      lastSpeakingTimeMs: 10_000,
      transcriptionDelayMs: 512.4,
    });
    latencies.agentStartedSpeaking(10_731.6);
    expect(reported).toEqual([
      {
        turns: 1,
        endOfSpeechToFirstAudioMs: { p50: 732, p95: 732, max: 732 },
        transcriptionDelayMs: { p50: 512, p95: 512, max: 512 },
        llmFirstTokenMs: null,
        ttsFirstAudioMs: null,
      },
    ]);
    // LiveKit reports the model's and synthesis's first outputs when their streams end.
    latencies.llmFirstToken('r1', 201.2);
    latencies.ttsFirstAudio('r1', 11.7);
    latencies.ttsFirstAudio('r1', 99); // a second synthesis of the same reply: the first counts
    latencies.llmFirstToken('other', 5);
    expect(reported).toHaveLength(3);
    expect(reported.at(-1)).toEqual({
      turns: 1,
      endOfSpeechToFirstAudioMs: { p50: 732, p95: 732, max: 732 },
      transcriptionDelayMs: { p50: 512, p95: 512, max: 512 },
      llmFirstTokenMs: { p50: 201, p95: 201, max: 201 },
      ttsFirstAudioMs: { p50: 12, p95: 12, max: 12 },
    });
    // The reply speaks again after a pause in its audio: still one turn.
    latencies.agentStartedSpeaking(12_000);
    expect(reported).toHaveLength(3);
  });

  it('takes stages reported before the first audio into the turn', () => {
    const { latencies, reported } = tracker();
    latencies.endOfTurn({ speechId: 'r1', lastSpeakingTimeMs: 1_000, transcriptionDelayMs: 300 });
    latencies.llmFirstToken('r1', 200);
    latencies.ttsFirstAudio('r1', 10);
    latencies.agentStartedSpeaking(1_600);
    expect(reported).toEqual([
      {
        turns: 1,
        endOfSpeechToFirstAudioMs: { p50: 600, p95: 600, max: 600 },
        transcriptionDelayMs: { p50: 300, p95: 300, max: 300 },
        llmFirstTokenMs: { p50: 200, p95: 200, max: 200 },
        ttsFirstAudioMs: { p50: 10, p95: 10, max: 10 },
      },
    ]);
  });

  it('counts no reply that never spoke, none the user spoke over first, none without an end of speech', () => {
    const { latencies, reported } = tracker();
    // Cancelled before its audio: a later reply of other origin is not this turn's answer.
    latencies.endOfTurn({ speechId: 'r1', lastSpeakingTimeMs: 1_000, transcriptionDelayMs: 300 });
    latencies.speechDone('r1');
    latencies.agentStartedSpeaking(5_000);
    // The user spoke on before the reply was heard.
    latencies.endOfTurn({ speechId: 'r2', lastSpeakingTimeMs: 6_000, transcriptionDelayMs: 300 });
    latencies.userStartedSpeaking();
    latencies.agentStartedSpeaking(9_000);
    // The VAD did not hear the end of speech.
    latencies.endOfTurn({ speechId: 'r3', lastSpeakingTimeMs: 0, transcriptionDelayMs: 0 });
    latencies.agentStartedSpeaking(10_000);
    expect(reported).toEqual([]);
    expect(latencies.summary()).toBeNull();
    // Another reply's end does not forget the pending one.
    latencies.endOfTurn({ speechId: 'r4', lastSpeakingTimeMs: 20_000, transcriptionDelayMs: 300 });
    latencies.speechDone('r3');
    latencies.agentStartedSpeaking(20_800);
    expect(latencies.summary()?.endOfSpeechToFirstAudioMs).toEqual({
      p50: 800,
      p95: 800,
      max: 800,
    });
  });

  it('in push-to-talk, measures from the key’s release when it comes after the last word', () => {
    const { latencies } = tracker();
    // The user stopped talking at 1 s and held the key until 3.5 s.
    latencies.keyReleased(3_500);
    latencies.endOfTurn({ speechId: 'r1', lastSpeakingTimeMs: 1_000, transcriptionDelayMs: 2_700 });
    latencies.agentStartedSpeaking(4_100);
    // A release before the last word heard (a quick tap) leaves the end of speech.
    latencies.keyReleased(9_900);
    latencies.endOfTurn({ speechId: 'r2', lastSpeakingTimeMs: 10_000, transcriptionDelayMs: 300 });
    latencies.agentStartedSpeaking(10_700);
    // The release counts for its own turn only.
    latencies.endOfTurn({ speechId: 'r3', lastSpeakingTimeMs: 20_000, transcriptionDelayMs: 300 });
    latencies.agentStartedSpeaking(20_800);
    expect(latencies.summary()?.endOfSpeechToFirstAudioMs).toEqual({
      p50: 700,
      p95: 800,
      max: 800,
    });
    expect(latencies.summary()?.turns).toBe(3);
  });

  it('reports nearest-rank percentiles over the turns', () => {
    const { latencies } = tracker();
    // 20 turns answered after 100, 200, ... 2000 ms, in shuffled order.
    const delays = Array.from({ length: 20 }, (_, i) => ((i * 7) % 20) * 100 + 100);
    delays.forEach((delay, i) => {
      const end = 100_000 * (i + 1);
      latencies.endOfTurn({ speechId: `r${i}`, lastSpeakingTimeMs: end, transcriptionDelayMs: 0 });
      latencies.agentStartedSpeaking(end + delay);
    });
    expect(latencies.summary()).toMatchObject({
      turns: 20,
      endOfSpeechToFirstAudioMs: { p50: 1000, p95: 1900, max: 2000 },
      transcriptionDelayMs: { p50: 0, p95: 0, max: 0 },
      llmFirstTokenMs: null,
    });
  });
});
