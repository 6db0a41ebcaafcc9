import { ATTR_AUDIO_RESPONSE } from '@awp/protocol';
import { type JobContext, type llm, voice } from '@livekit/agents';
import { type AgentSessionRecord, userIdentity } from '../../src/worker-boundary/index.ts';
import { capabilityFrameworkTools } from './capabilities.ts';
import { recordingOption } from './recording.ts';
import type { SpeechPipeline } from './session-pipeline.ts';
import type { PreparedConversation } from './session-prompt.ts';
import { chatContextOf, type StoredTurn } from './session-resume.ts';
import type { ToolTurns } from './tool-turns.ts';

/**
 * Starts the Agent in the room: the prompt, the tools, the conversation so far (a resumed
 * session's stored turns), typed input, captions and the recording.
 */
export async function startAgent(
  ctx: JobContext,
  record: AgentSessionRecord,
  parts: {
    pipeline: SpeechPipeline;
    prepared: PreparedConversation;
    toolTurns: ToolTurns;
    soFar: StoredTurn[];
  },
): Promise<void> {
  const { app, capabilities, prompt } = parts.prepared;
  const { voiceSession } = parts.pipeline;
  await voiceSession.start({
    agent: app
      ? app.agent(parts.soFar)
      : new voice.Agent({
          instructions: prompt.instructions,
          ...(parts.soFar.length > 0 ? { chatCtx: chatContextOf(parts.soFar) } : {}),
          ...(capabilities?.definitions.length
            ? { tools: capabilityFrameworkTools(capabilities, parts.toolTurns) }
            : {}),
        }),
    room: ctx.room,
    inputOptions: {
      participantIdentity: userIdentity(record.id),
      closeOnDisconnect: true,
      textInputCallback: (voiceSession, event) =>
        typedInput(parts.pipeline, parts.prepared, voiceSession, event),
    },
    // The Agent's captions are the worker's own, paced by playback (captions.ts).
    outputOptions: { transcriptionEnabled: true, syncTranscription: false },
    record: recordingOption(record.snapshot.recordingEnabled),
  });
}

function typedInput(
  pipeline: SpeechPipeline,
  prepared: PreparedConversation,
  voiceSession: voice.AgentSession,
  event: voice.TextInputEvent,
): Promise<void> | undefined {
  const { app } = prepared;
  if (app) {
    voiceSession.interrupt();
    return app.textInput(voiceSession, event.text, (message: llm.ChatMessage) =>
      voiceSession.generateReply({ userInput: message }),
    );
  }
  const audio = event.info?.attributes?.[ATTR_AUDIO_RESPONSE] !== 'false';
  voiceSession.interrupt();
  if (audio) {
    voiceSession.generateReply({ userInput: event.text });
    return;
  }
  // Text in, text out: this one answer is not synthesized (captions.ts shows its text).
  pipeline.speech.muted = true;
  const handle = voiceSession.generateReply({ userInput: event.text });
  return handle.waitForPlayout().finally(() => {
    pipeline.speech.muted = false;
  });
}
