// Library tests of the client SDK against a protocol peer: Chromium (fake microphone) joins
// a real livekit-server through the session-start stub, and a @livekit/rtc-node peer plays
// the Agent's side of docs/agent-protocol.md (harness/protocol-peer.ts). The end-to-end
// test with the real api and worker lives elsewhere.

import { dispose, Room } from '@livekit/rtc-node';
import { AccessToken } from 'livekit-server-sdk';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { realtimeTest as it } from '../../fixtures/realtime.ts';
import { launchBrowser, type TestBrowser } from '../../helpers/browser.ts';
import type { LivekitServer } from '../../helpers/livekit.ts';
import { within } from '../../helpers/wait.ts';
import { openTestPage } from './harness/page.ts';
import { ProtocolPeer } from './harness/protocol-peer.ts';
import { type SessionStub, type StubSession, startSessionStub } from './harness/session-stub.ts';

const AGENT_ID = '6f1c2b9e-8a47-4c1d-9e3f-2b5a7c9d0e11';

async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  context: () => Promise<unknown> = async () => '',
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what} ${JSON.stringify(await context())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Runs one teardown step within 10 s; a step that fails or hangs is written to the output
 * and the next one still runs.
 */
async function bounded(what: string, step: () => Promise<unknown> | undefined): Promise<void> {
  const failed = Promise.resolve(step()).then(
    () => undefined,
    (error: unknown) => String(error),
  );
  const outcome = await within(failed, 10_000, 'did not finish within 10 s');
  if (outcome) console.warn(`teardown: ${what}: ${outcome}`);
}

describe('client SDK against a protocol peer (livekit-server + rtc-node Agent)', () => {
  let livekit: LivekitServer;
  let stub: SessionStub;
  let browser: TestBrowser;
  let page: Page;
  const peers: ProtocolPeer[] = [];
  const lastPeer = () => peers[peers.length - 1]!;

  /**
   * Joins the session's Agent stand-in; a join that fails (rtc-node's connection to
   * livekit-server on a loaded machine) is written to the output and tried once more, as a
   * real dispatch would give the session to another job. The client under test waits for
   * the session start either way.
   */
  const joinOnceMore = async (session: StubSession): Promise<ProtocolPeer> => {
    try {
      return await ProtocolPeer.join(livekit, session);
    } catch (error) {
      console.warn('the Agent peer could not join; joining once more:', error);
      return ProtocolPeer.join(livekit, session);
    }
  };

  it.beforeAll(async ({ livekit: started }) => {
    livekit = started;
    stub = await startSessionStub(livekit);
    stub.onSession(async (session) => {
      peers.push(await joinOnceMore(session));
    });
    browser = await launchBrowser();
    page = await openTestPage(browser, stub.origin);
  }, 90_000);

  it.afterAll(async () => {
    await bounded('disconnecting the client', () =>
      page?.evaluate(() => window.client?.disconnect()),
    );
    for (const peer of peers) await bounded('the Agent peer leaving', () => peer.leave());
    await bounded('closing the browser', () => browser?.close());
    await bounded('closing the session stub', () => stub?.close());
    await bounded('disposing rtc-node', () => dispose());
  }, 60_000);

  it.afterEach(() => {
    // The peer's replies run in the background; one that failed in the room fails the test.
    expect(peers.flatMap((peer) => peer.log.failures)).toEqual([]);
    // A session start the stub could not serve (the page sees only HTTP 500): its cause.
    expect(stub.failures).toEqual([]);
  });

  it.beforeEach(async () => {
    await page.evaluate(async () => {
      await window.client?.disconnect();
      window.events = [];
    });
  });

  const events = (name?: string) =>
    page.evaluate((n) => window.events.filter((e) => !n || e.name === n), name);

  /** Creates `window.client` with these options (a fresh token per connect) and connects. */
  const connect = (options: Record<string, unknown> = {}, inputMode?: string) =>
    page.evaluate(
      async ({ agentId, origin, options, inputMode }) => {
        window.client = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => window.freshToken(),
          ...options,
        });
        window.record(window.client);
        const session = await window.client.connect(inputMode ? { inputMode } : {});
        return { session, state: window.client.connectionState, mode: window.client.inputMode };
      },
      { agentId: AGENT_ID, origin: stub.origin, options, inputMode },
    );

  it('connects in push-to-talk by default, resolves with the session, publishes the microphone and plays the Agent', async () => {
    const { session, state, mode } = await connect({
      sessionContext: { userName: 'Ada', timeZone: ' ' },
    });
    const peer = lastPeer();
    expect(state).toBe('connected');
    expect(mode).toBe('push-to-talk');
    expect(session).toEqual({
      sessionId: peer.session.sessionId,
      agentId: AGENT_ID,
      room: `awp-${peer.session.sessionId}`,
      livekit: { url: livekit.url, token: expect.any(String) },
      avatar: { id: 'avatar_ada', name: 'Ada', imageUrl: '/avatar.png' },
      expiresAt: expect.any(String),
    });
    expect(stub.starts.at(-1)?.body).toEqual({ sessionContext: { userName: 'Ada' } });
    expect(peer.log.rpcs[0]).toEqual({
      method: 'awp.input_mode',
      payload: { mode: 'push-to-talk' },
    });
    const connection = await events('connectionState');
    expect(connection.map((e) => e.payload)).toEqual(['connecting', 'connected']);
    expect((await events('session')).map((e) => e.payload.sessionId)).toEqual([session.sessionId]);

    await until(async () => (await events('remoteAudioTrack')).length > 0, 'remoteAudioTrack');
    expect((await events('remoteAudioTrack'))[0]?.payload).toEqual({
      kind: 'audio',
      readyState: 'live',
    });
    const playback = await page.evaluate(() =>
      [...document.querySelectorAll('audio')].map((a) => ({ muted: a.muted, hidden: a.hidden })),
    );
    expect(playback).toEqual([{ muted: false, hidden: true }]);
    await page.evaluate(() => {
      window.client.muted = true;
    });
    expect(
      await page.evaluate(() => [...document.querySelectorAll('audio')].map((a) => a.muted)),
    ).toEqual([true]);

    expect(await page.evaluate(() => window.client.microphoneTrack?.readyState)).toBe('live');
    // The fake microphone's tone reaches the Agent, only after the Agent has the mode (in
    // its starting mode, automatic, the tone would cut off its greeting).
    await until(
      () => peer.log.userAudioFrames > 50 && peer.log.userAudioPeak > 0.1,
      'user audio at the peer',
    );
    expect(peer.log.rpcsBeforeMicrophone).toEqual(['awp.input_mode']);
  });

  it('runs a push-to-talk turn: controls in order, captions, persisted turns and speaking state', async () => {
    await connect();
    const peer = lastPeer();
    const settled = await page.evaluate(async () => {
      // Not awaited in between: the control queue keeps the order.
      const start = window.client.startPushToTalk();
      const commit = window.client.commitPushToTalk();
      return Promise.all([start, commit]).then((values) => values.map((v) => v === undefined));
    });
    expect(settled).toEqual([true, true]);
    expect(peer.log.rpcs.map((r) => r.method)).toEqual([
      'awp.input_mode',
      'awp.ptt.start',
      'awp.ptt.commit',
    ]);

    await until(async () => (await events('transcript')).length >= 2, 'two transcript events');
    expect((await events('transcript')).map((e) => e.payload)).toEqual([
      { id: 'msg-user-1', role: 'user', text: 'hello agent', final: true },
      { id: 'msg-agent-1', role: 'agent', text: 'Hi there, how can I help?', final: true },
    ]);
    const captions = (await events('transcriptProgress')).map((e) => e.payload);
    expect(captions.filter((c) => c.role === 'user')).toEqual([
      { segmentId: 'user-seg-1', role: 'user', text: 'hello', final: false },
      { segmentId: 'user-seg-1', role: 'user', text: 'hello agent', final: false },
      { segmentId: 'user-seg-1', role: 'user', text: 'hello agent', final: true },
    ]);
    const agentCaptions = captions.filter((c) => c.role === 'agent');
    expect(agentCaptions.map((c) => c.text)).toEqual([
      'Hi',
      'Hi there,',
      'Hi there, how',
      'Hi there, how can',
      'Hi there, how can I',
      'Hi there, how can I help?',
      'Hi there, how can I help?',
    ]);
    expect(agentCaptions.at(-1)).toEqual({
      segmentId: 'agent-seg-1',
      role: 'agent',
      text: 'Hi there, how can I help?',
      final: true,
    });
    await until(
      async () => (await events('agentSpeaking')).length >= 4,
      'agent state changes',
      10_000,
      () => events('agentSpeaking'),
    );
    expect((await events('agentSpeaking')).map((e) => e.payload)).toEqual([
      { speaking: false, state: 'listening' },
      { speaking: false, state: 'thinking' },
      { speaking: true, state: 'speaking' },
      { speaking: false, state: 'listening' },
    ]);
  });

  it('a refused control rejects with the Agent code and emits it as an error event', async () => {
    await connect();
    const code = await page.evaluate(() =>
      window.client.commitPushToTalk().catch((e: { code: string }) => e.code),
    );
    expect(code).toBe('invalid_request');
    expect((await events('error')).map((e) => e.payload)).toEqual([
      { code: 'invalid_request', message: 'no turn was started', retryable: false },
    ]);
    // The queue goes on after a failure.
    expect(await page.evaluate(() => window.client.cancelPushToTalk().then(() => 'ok'))).toBe('ok');
  });

  it('switches to automatic: the Agent is told, push-to-talk then throws wrong_input_mode', async () => {
    await connect({}, 'automatic');
    const peer = lastPeer();
    expect(peer.log.rpcs).toEqual([{ method: 'awp.input_mode', payload: { mode: 'automatic' } }]);
    const result = await page.evaluate(async () => {
      const attempt = (fn: () => unknown) => {
        try {
          fn();
          return 'no throw';
        } catch (error) {
          return (error as { code: string }).code;
        }
      };
      const inAutomatic = [
        attempt(() => window.client.startPushToTalk()),
        attempt(() => window.client.commitPushToTalk()),
      ];
      await window.client.setInputMode('push-to-talk');
      const mode = window.client.inputMode;
      await window.client.startPushToTalk();
      await window.client.cancelPushToTalk();
      await window.client.interrupt();
      await window.client.setMicrophoneEnabled(false);
      const micMuted = window.client.microphoneTrack?.enabled === false;
      await window.client.setMicrophoneEnabled(true);
      return { inAutomatic, mode, micMuted };
    });
    expect(result).toEqual({
      inAutomatic: ['wrong_input_mode', 'wrong_input_mode'],
      mode: 'push-to-talk',
      micMuted: true,
    });
    expect(peer.log.rpcs.map((r) => r.method)).toEqual([
      'awp.input_mode',
      'awp.input_mode',
      'awp.ptt.start',
      'awp.ptt.cancel',
      'awp.interrupt',
    ]);
    expect(peer.log.rpcs[1]?.payload).toEqual({ mode: 'push-to-talk' });
  });

  it('sends text, text-only on request; declined turns and Agent errors become events', async () => {
    await connect();
    const peer = lastPeer();
    await page.evaluate(async () => {
      await window.client.sendText('what time is it', { audioResponse: false });
      await window.client.sendText('and now');
      await window.client.sendText('stay quiet');
      await window.client.sendText('fail please');
    });
    await until(() => peer.log.chats.length === 4, 'four chats at the peer');
    expect(peer.log.chats).toEqual([
      { text: 'what time is it', attributes: { 'awp.audio_response': 'false' } },
      { text: 'and now', attributes: {} },
      { text: 'stay quiet', attributes: {} },
      { text: 'fail please', attributes: {} },
    ]);
    const agentTurnCount = async () =>
      (await events('transcript')).filter((e) => e.payload.role === 'agent').length;
    await until(async () => (await agentTurnCount()) === 2, 'two Agent turns');
    await until(async () => (await events('error')).length > 0, 'the Agent error');
    expect((await events('declined')).map((e) => e.payload)).toEqual([
      { reason: 'asked to stay quiet' },
    ]);
    expect((await events('error')).map((e) => e.payload)).toEqual([
      { code: 'provider_unavailable', message: 'voice down', retryable: true },
    ]);
    const agentTurns = (await events('transcript'))
      .filter((e) => e.payload.role === 'agent')
      .map((e) => e.payload.text);
    // Answered concurrently by the peer: compare without order.
    expect(agentTurns.sort()).toEqual(['You said: and now', 'You said: what time is it']);
  });

  it('takes captions only from the Agent: another participant cannot caption as it', async () => {
    await connect();
    const peer = lastPeer();
    // A backend-like participant in the same room (an application's control connection).
    const intruder = new Room();
    const access = new AccessToken(livekit.apiKey, livekit.apiSecret, {
      identity: `app-backend-${peer.session.sessionId}`,
      ttl: '5m',
    });
    access.addGrant({
      roomJoin: true,
      room: peer.session.room,
      canPublish: false,
      canSubscribe: false,
      canPublishData: true,
    });
    await intruder.connect(livekit.url, await access.toJwt(), {
      autoSubscribe: false,
      dynacast: false,
    });
    try {
      for (const identity of [peer.room.localParticipant!.identity, peer.session.userIdentity]) {
        const writer = await intruder.localParticipant!.streamText({
          topic: 'lk.transcription',
          senderIdentity: identity,
          attributes: { 'lk.segment_id': `forged-${identity}`, 'lk.transcription_final': 'true' },
        });
        await writer.write('INJECTED caption');
        await writer.close();
      }
      await page.evaluate(() => window.client.sendText('after the forgery'));
      await until(
        async () =>
          (await events('transcriptProgress')).some(
            (e) => e.payload.final && e.payload.text === 'You said: after the forgery',
          ),
        "the Agent's caption",
      );
      const captions = (await events('transcriptProgress')).map((e) => e.payload.text);
      expect(captions.filter((text) => text.includes('INJECTED'))).toEqual([]);
      expect(captions.at(-1)).toBe('You said: after the forgery');
    } finally {
      await intruder.disconnect();
    }
  });

  it('disconnect() ends the session and stops the microphone track', async () => {
    await connect();
    const result = await page.evaluate(async () => {
      const track = window.client.microphoneTrack as MediaStreamTrack;
      const before = track.readyState;
      await window.client.disconnect();
      let code = 'no throw';
      try {
        window.client.startPushToTalk();
      } catch (error) {
        code = (error as { code: string }).code;
      }
      return {
        before,
        after: track.readyState,
        state: window.client.connectionState,
        mic: window.client.microphoneTrack,
        session: window.client.session,
        audioElements: document.querySelectorAll('audio').length,
        code,
      };
    });
    expect(result).toEqual({
      before: 'live',
      after: 'ended',
      state: 'disconnected',
      mic: null,
      session: null,
      audioElements: 0,
      code: 'not_connected',
    });
    expect((await events('connectionState')).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'disconnected',
    ]);
  });

  it('a cached token fails the next connect with token_expired; a fresh one per call works', async () => {
    const startsBefore = stub.starts.length;
    const result = await page.evaluate(
      async ({ agentId, origin }) => {
        let cached: { token: string; expires_at: string } | undefined;
        let calls = 0;
        const client = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: async () => {
            calls++;
            cached ??= await window.freshToken();
            return cached;
          },
        });
        await client.connect();
        await client.disconnect();
        const code = await client.connect().catch((e: { code: string }) => e.code);
        return { code, calls, state: client.connectionState };
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    expect(result).toEqual({ code: 'token_expired', calls: 2, state: 'disconnected' });
    expect(stub.starts.length - startsBefore).toBe(1);
  });

  it('with inputAudioEnabled false: no microphone request, push-to-talk fails with input_audio_disabled, text works', async () => {
    const callsBefore = await page.evaluate(() => window.getUserMediaCalls);
    await connect({ inputAudioEnabled: false, audioPlayback: false });
    const peer = lastPeer();
    const result = await page.evaluate(async () => {
      const attempt = (fn: () => unknown) => {
        try {
          fn();
          return 'no throw';
        } catch (error) {
          return (error as { code: string }).code;
        }
      };
      const codes = [
        attempt(() => window.client.startPushToTalk()),
        attempt(() => window.client.setMicrophoneEnabled(true)),
      ];
      await window.client.sendText('typing only');
      window.client.muted = true;
      return {
        codes,
        mic: window.client.microphoneTrack,
        muted: window.client.muted,
        getUserMedia: window.getUserMediaCalls,
      };
    });
    expect(result).toEqual({
      codes: ['input_audio_disabled', 'input_audio_disabled'],
      mic: null,
      muted: false,
      getUserMedia: callsBefore,
    });
    await until(() => peer.log.chats.length === 1, 'the chat');
    // audioPlayback false: the track is handed to the app, nothing plays it.
    await until(async () => (await events('remoteAudioTrack')).length > 0, 'remoteAudioTrack');
    expect(await page.evaluate(() => document.querySelectorAll('audio').length)).toBe(0);
  });

  it('with audioPlayback false, the app plays the Agent’s track itself: the library creates no audio element and muted has no effect', async () => {
    // Every audio element the page creates through the DOM (as livekit-client's attach does).
    await page.evaluate(() => {
      const counted = window as unknown as { audioElementsCreated: number };
      counted.audioElementsCreated = 0;
      const original = document.createElement.bind(document);
      document.createElement = ((name: string, options?: ElementCreationOptions) => {
        if (name.toLowerCase() === 'audio' || name.toLowerCase() === 'video') {
          counted.audioElementsCreated++;
        }
        return original(name, options);
      }) as typeof document.createElement;
    });
    // The app's own player: it takes the track from `remoteAudioTrack` and measures it.
    await page.evaluate(
      async ({ agentId, origin }) => {
        const app = window as unknown as { appPeak: number; appPlayer: HTMLAudioElement };
        app.appPeak = 0;
        window.client = new window.awp.ConversationClient({
          agentId,
          apiOrigin: origin,
          sessionToken: () => window.freshToken(),
          audioPlayback: false,
        });
        window.client.muted = true;
        window.record(window.client);
        window.client.on('remoteAudioTrack', ({ track }: { track: MediaStreamTrack }) => {
          const stream = new MediaStream([track]);
          app.appPlayer = new Audio();
          app.appPlayer.srcObject = stream;
          void app.appPlayer.play();
          const context = new AudioContext();
          const analyser = context.createAnalyser();
          context.createMediaStreamSource(stream).connect(analyser);
          const samples = new Float32Array(analyser.fftSize);
          setInterval(() => {
            analyser.getFloatTimeDomainData(samples);
            for (const sample of samples) app.appPeak = Math.max(app.appPeak, Math.abs(sample));
          }, 50);
        });
        await window.client.connect();
      },
      { agentId: AGENT_ID, origin: stub.origin },
    );
    await until(async () => (await events('remoteAudioTrack')).length > 0, 'remoteAudioTrack');
    const appHears = () =>
      page.evaluate(() => {
        const app = window as unknown as { appPeak: number; appPlayer: HTMLAudioElement };
        return { peak: app.appPeak, time: app.appPlayer.currentTime, paused: app.appPlayer.paused };
      });
    // The Agent's 220 Hz tone (amplitude about 0.09) plays in the app's player.
    await until(
      async () => (await appHears()).peak > 0.03,
      'the Agent at the app',
      10_000,
      appHears,
    );
    await page.evaluate(() => {
      window.client.muted = true;
      (window as unknown as { appPeak: number }).appPeak = 0;
    });
    await until(
      async () => (await appHears()).peak > 0.03,
      'the Agent at the app after muted',
      10_000,
      appHears,
    );
    const state = await page.evaluate(() => ({
      muted: window.client.muted,
      created: (window as unknown as { audioElementsCreated: number }).audioElementsCreated,
      inDocument: document.querySelectorAll('audio, video').length,
      trackEnabled: (window as unknown as { appPlayer: HTMLAudioElement }).appPlayer.srcObject
        ? (
            (window as unknown as { appPlayer: HTMLAudioElement }).appPlayer
              .srcObject as MediaStream
          )
            .getAudioTracks()
            .map((track) => ({ enabled: track.enabled, readyState: track.readyState }))
        : [],
      playing: !(window as unknown as { appPlayer: HTMLAudioElement }).appPlayer.paused,
    }));
    expect(state).toEqual({
      muted: false,
      created: 0,
      inDocument: 0,
      trackEnabled: [{ enabled: true, readyState: 'live' }],
      playing: true,
    });
    expect((await events('error')).map((e) => e.payload)).toEqual([]);
  });

  it('the Agent ending the session (awp.session_ended) emits agent_unavailable and disconnects at once', async () => {
    await connect();
    await lastPeer().leave({ endedReason: 'max_duration' });
    await until(
      async () => (await events('connectionState')).some((e) => e.payload === 'disconnected'),
      'disconnected',
    );
    expect((await events('connectionState')).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'disconnected',
    ]);
    expect((await events('error')).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        code: 'agent_unavailable',
        message: 'The Agent ended the conversation.',
      }),
    ]);
    expect(await page.evaluate(() => window.client.connectionState)).toBe('disconnected');
  });

  it('a lost Agent (left without ending) is waited for, reconnecting, and the same identity joining again resumes the conversation without a new connect', async () => {
    await connect({}, 'automatic');
    const first = lastPeer();
    await until(async () => (await events('remoteAudioTrack')).length === 1, 'the agent audio');
    await first.leave();
    await until(
      async () => (await page.evaluate(() => window.client.connectionState)) === 'reconnecting',
      'reconnecting',
    );
    // Still waiting a while later: the room is kept, nothing is reported as failed.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await page.evaluate(() => window.client.connectionState)).toBe('reconnecting');
    expect(await page.evaluate(() => window.client.agentState)).toBe(null);
    const before = stub.starts.length;
    const second = await ProtocolPeer.join(livekit, first.session);
    peers.push(second);
    await until(
      async () => (await page.evaluate(() => window.client.connectionState)) === 'connected',
      'connected again',
    );
    expect((await events('connectionState')).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'reconnecting',
      'connected',
    ]);
    // The user's input mode is set on the new Agent, whose own default was push-to-talk.
    expect(second.log.rpcs).toEqual([{ method: 'awp.input_mode', payload: { mode: 'automatic' } }]);
    expect(await page.evaluate(() => window.client.inputMode)).toBe('automatic');
    // The new Agent's voice arrives as a second remoteAudioTrack, on the same client.
    await until(async () => (await events('remoteAudioTrack')).length === 2, 'the new agent audio');
    await page.evaluate(() => window.client.sendText('are you back'));
    await until(
      async () =>
        (await events('transcript')).some((e) => e.payload.text === 'You said: are you back'),
      'the new Agent answering',
    );
    expect(stub.starts.length).toBe(before);
    expect((await events('session')).length).toBe(1);
    expect((await events('error')).map((e) => e.payload)).toEqual([]);
  });

  it('a resumed job’s Agent joining under its own identity before the lost one left is adopted: text and controls go to it, the old one leaving changes nothing', async () => {
    await connect({}, 'automatic');
    const first = lastPeer();
    await until(async () => (await events('remoteAudioTrack')).length === 1, 'the agent audio');
    // The new job joins while LiveKit still lists the lost job's participant.
    const second = await ProtocolPeer.join(livekit, first.session, {
      identity: `agent-${first.session.sessionId}-1`,
    });
    peers.push(second);
    await until(
      async () => (await events('connectionState')).length === 4,
      'the client to take the new Agent',
    );
    expect((await events('connectionState')).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'reconnecting',
      'connected',
    ]);
    expect(second.log.rpcs).toEqual([{ method: 'awp.input_mode', payload: { mode: 'automatic' } }]);
    // The lost job's participant goes later: the conversation stays with the new Agent.
    await first.leave();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await page.evaluate(() => window.client.connectionState)).toBe('connected');
    await page.evaluate(() => window.client.sendText('are you back'));
    await until(
      async () =>
        (await events('transcript')).some((e) => e.payload.text === 'You said: are you back'),
      'the new Agent answering',
    );
    expect(second.log.chats.map((c) => c.text)).toEqual(['are you back']);
    expect(first.log.chats).toEqual([]);
    await page.evaluate(() => window.client.interrupt());
    expect(second.log.rpcs.map((r) => r.method)).toEqual(['awp.input_mode', 'awp.interrupt']);
    expect((await events('connectionState')).length).toBe(4);
    expect((await events('error')).map((e) => e.payload)).toEqual([]);
  });

  it('a lost Agent that does not join again within agentRejoinTimeoutMs ends the conversation with agent_unavailable', async () => {
    await connect({ agentRejoinTimeoutMs: 1500 });
    await lastPeer().leave();
    await until(
      async () => (await page.evaluate(() => window.client.connectionState)) === 'reconnecting',
      'reconnecting',
    );
    const waitFrom = Date.now();
    await until(
      async () => (await page.evaluate(() => window.client.connectionState)) === 'disconnected',
      'disconnected',
    );
    expect(Date.now() - waitFrom).toBeGreaterThanOrEqual(1000);
    expect((await events('connectionState')).map((e) => e.payload)).toEqual([
      'connecting',
      'connected',
      'reconnecting',
      'disconnected',
    ]);
    expect((await events('error')).map((e) => e.payload)).toEqual([
      expect.objectContaining({
        code: 'agent_unavailable',
        message: 'The Agent did not come back in time.',
      }),
    ]);
  });
});
