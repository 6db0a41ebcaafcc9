import { APPLICATION_LIMITS } from '@awp/protocol';
import { z } from 'zod';
import { avatarSchema } from '../agents/avatar-routes.ts';
import { toolParametersProblem } from './json-schema.ts';

/** Tool names as language models accept them. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const DUPLICATE_POLICIES = ['allow', 'reject', 'replace', 'confirm'] as const;
const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;

/** A required field's message names what is missing rather than zod's type wording. */
function required(expected: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined ? 'is required' : `must be ${expected}`;
}

const uuid = z.uuid({ error: required('a UUID') });

const messageSchema = z
  .strictObject({
    role: z.enum(MESSAGE_ROLES, { error: required(`one of ${MESSAGE_ROLES.join(', ')}`) }),
    content: z.string({ error: required('a string') }),
  })
  .meta({ title: 'ApplicationMessage' });

const toolSchema = z
  .strictObject({
    name: z
      .string({ error: required('a string') })
      .regex(TOOL_NAME_PATTERN, { error: `must match ${TOOL_NAME_PATTERN.source}` })
      .describe('Unique in the session; what the model calls.'),
    description: z
      .string({ error: required('a string') })
      .describe('What the tool does, for the model.'),
    parameters: z
      .record(z.string(), z.unknown(), { error: required('a JSON Schema object') })
      .superRefine((schema, ctx) => {
        const problem = toolParametersProblem(schema);
        if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
      })
      .describe('JSON Schema of the arguments: `{"type": "object", "properties": {...}}`.')
      // Stated for the document too: the arguments are an object.
      .meta({ required: ['type'], properties: { type: { const: 'object' } } }),
    cancellable: z
      .boolean({ error: 'must be a boolean' })
      .default(false)
      .describe('The user interrupting the Agent cancels a running call.'),
    onDuplicate: z
      .enum(DUPLICATE_POLICIES, { error: `must be one of ${DUPLICATE_POLICIES.join(', ')}` })
      .default('allow')
      .describe('What a call does while a call of the same tool is still running.'),
    runReply: z
      .boolean({ error: 'must be a boolean' })
      .default(true)
      .describe(
        'False: the final result joins the context without a reply (dispatch tools that speak later through request reply).',
      ),
  })
  .meta({ title: 'ApplicationTool' });

const applicationSchema = z
  .strictObject({
    instructions: z
      .string({ error: required('a string') })
      .describe("Replaces the Agent's character card for this session."),
    history: z
      .array(messageSchema, { error: 'must be an array of messages' })
      .max(APPLICATION_LIMITS.historyMessages, {
        error: `at most ${APPLICATION_LIMITS.historyMessages} messages`,
      })
      .default([])
      .describe('Prior messages, oldest first.'),
    tools: z
      .array(toolSchema, { error: 'must be an array of tools' })
      .max(APPLICATION_LIMITS.tools, { error: `at most ${APPLICATION_LIMITS.tools} tools` })
      .superRefine((tools, ctx) => {
        const seen = new Map<string, number>();
        for (const [index, tool] of tools.entries()) {
          const first = seen.get(tool.name);
          if (first !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [index, 'name'],
              message: `"${tool.name}" is already the name of application.tools.${first}`,
            });
          } else {
            seen.set(tool.name, index);
          }
        }
      })
      .default([])
      .describe('Tools the backend implements; names unique.'),
  })
  .meta({ title: 'Application' });

/** The body of `POST /v1/agents/{agentId}/application-sessions`. */
export const applicationStartSchema = z
  .strictObject({
    agentId: uuid.describe('The Agent; the same as in the path.'),
    chatSessionId: uuid.describe("The backend's conversation."),
    requestId: uuid.describe(
      'Idempotency key: the same chatSessionId and requestId return the same session.',
    ),
    application: applicationSchema,
    recording: z
      .boolean()
      .optional()
      .describe(
        "Record this session (stereo Ogg Opus, `GET /v1/agent-sessions/{id}/recording`) or not; omitted: the Agent's `recording_enabled`. For a backend that asks each end user's consent.",
      ),
  })
  .meta({ title: 'ApplicationSessionStart' });

export type ApplicationStartBody = z.output<typeof applicationStartSchema>;

/** The part the backend keeps: its data-only LiveKit credential. */
export const controlPartSchema = z
  .object({
    livekit_url: z.string(),
    room: z.string(),
    token: z.string().describe('LiveKit access token of the backend; join within 5 minutes.'),
    identity: z.string().describe('The one identity the worker accepts commands from.'),
    expires_at: z.string().describe('End of the join window.'),
  })
  .meta({ title: 'ApplicationControl' });

/** The part the backend hands to its browser (the client library's `startSession`). */
export const sessionPartSchema = z
  .object({
    session_id: z.string(),
    agent_id: z.string(),
    livekit: z.object({
      url: z.string(),
      token: z.string().describe('LiveKit access token of the end user.'),
    }),
    room: z.string(),
    avatar: avatarSchema.describe("The Agent's avatar, as a managed session's start answers it."),
    expires_at: z.string(),
  })
  .meta({ title: 'ApplicationSessionPart' });

export const applicationStartedSchema = z
  .object({ control: controlPartSchema, session: sessionPartSchema })
  .meta({ title: 'ApplicationSessionStarted' });

export type ApplicationStarted = z.output<typeof applicationStartedSchema>;
