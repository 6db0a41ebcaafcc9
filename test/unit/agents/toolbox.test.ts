// The toolbox every managed-Agent capability goes through: which capabilities a
// publication turns on, and how each call's outcome reaches the model (results, bounded
// size, failures, timeouts, cancellation) without ever throwing.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PublishedAgent } from '../../../src/agents/agent-records.ts';
import {
  type AgentCapability,
  type AgentToolContext,
  AgentToolError,
  defineAgentTool,
} from '../../../src/agents/capabilities/agent-tool.ts';
import { AgentToolbox, MAX_TOOL_OUTPUT_CHARS } from '../../../src/agents/capabilities/toolbox.ts';
import { plainText } from '../../../src/agents/capabilities/websearch/provider.ts';
import { ApiError } from '../../../src/errors.ts';
import { captureLogger } from '../../helpers/log-capture.ts';

const CONTEXT: AgentToolContext = {
  workspaceId: 'ws_1',
  environment: 'production',
  agentId: 'agent-1',
  endUserId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  timeZone: null,
  origin: { kind: 'conversation', conversationId: 'c-1' },
};

function agent(switches: { memory?: boolean; webSearch?: boolean }): PublishedAgent {
  return {
    webSearchEnabled: switches.webSearch ?? false,
    publication: { memoryEnabled: switches.memory ?? false },
  } as PublishedAgent;
}

const echo = defineAgentTool({
  name: 'echo',
  description: 'Echoes.',
  parameters: z.object({ text: z.string(), times: z.number().int().min(1).default(1) }),
  run: async ({ text, times }, context) => ({ said: text.repeat(times), for: context.endUserId }),
});
const refuse = defineAgentTool({
  name: 'refuse',
  description: 'Always says no.',
  parameters: z.object({}),
  run: async () => {
    throw new AgentToolError('The calendar is not connected.');
  },
});
const crash = defineAgentTool({
  name: 'crash',
  description: 'Fails unexpectedly.',
  parameters: z.object({}),
  run: async () => {
    throw new Error('secret internals');
  },
});
const huge = defineAgentTool({
  name: 'huge',
  description: 'Answers a lot.',
  parameters: z.object({}),
  run: async () => ({ text: 'x'.repeat(MAX_TOOL_OUTPUT_CHARS * 2) }),
});
const slow = defineAgentTool({
  name: 'slow',
  description: 'Waits for its signal.',
  parameters: z.object({}),
  run: (_args, _context, signal) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason));
    }),
});

const memory: AgentCapability = {
  name: 'memory',
  needsEndUser: 'memory_identity_required',
  enabled: (a) => a.publication.memoryEnabled,
  instructions: async (context) => `Memories of ${context.endUserId}.`,
  tools: () => [echo, refuse, crash, huge, slow],
};
const search: AgentCapability = {
  name: 'web_search',
  needsEndUser: null,
  enabled: (a) => a.webSearchEnabled,
  tools: () => [],
};

const call = (name: string, args: string) => ({ id: 'c1', name, arguments: args });

describe('AgentToolbox', () => {
  it('prepares only the capabilities the publication switches on', async () => {
    const { logger } = captureLogger();
    const toolbox = new AgentToolbox([memory, search], logger);
    const none = await toolbox.prepare(agent({}), CONTEXT);
    expect(none.capabilities).toEqual([]);
    expect(none.definitions).toEqual([]);
    expect(none.instructions).toEqual([]);
    const both = await toolbox.prepare(agent({ memory: true, webSearch: true }), CONTEXT);
    expect(both.capabilities).toEqual(['memory', 'web_search']);
    expect(both.instructions).toEqual([`Memories of ${CONTEXT.endUserId}.`]);
    expect(both.definitions.map((d) => d.name)).toEqual([
      'echo',
      'refuse',
      'crash',
      'huge',
      'slow',
    ]);
    expect(both.definitions[0]?.parameters).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string' },
        times: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 1 },
      },
      required: ['text'],
    });
  });

  it('refuses a missing end user with the error a switched-on capability declares', () => {
    const { logger } = captureLogger();
    const toolbox = new AgentToolbox([search, memory], logger);
    const refusal = (() => {
      try {
        toolbox.requireEndUser(agent({ memory: true, webSearch: true }), undefined);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe('memory_identity_required');
    expect((refusal as ApiError).detail).toBe('The Agent has memory enabled: send end_user_id.');
    // Web search declares no need; memory switched off asks for nothing.
    expect(() => toolbox.requireEndUser(agent({ webSearch: true }), undefined)).not.toThrow();
    expect(() =>
      toolbox.requireEndUser(agent({ memory: true }), '0f8fad5b-d9cb-469f-a165-70867728950e'),
    ).not.toThrow();
  });

  it('turns every call into a result the model reads, and never throws', async () => {
    const { logger, lines } = captureLogger();
    const tools = await new AgentToolbox([memory], logger).prepare(
      agent({ memory: true }),
      CONTEXT,
    );
    const signal = new AbortController().signal;
    expect(await tools.call(call('echo', '{"text":"ab","times":2}'), signal)).toEqual({
      ok: true,
      output: JSON.stringify({ said: 'abab', for: CONTEXT.endUserId }),
    });
    expect(await tools.call(call('echo', ''), signal)).toEqual({
      ok: false,
      output: JSON.stringify({
        error:
          "The arguments do not fit the tool's parameters: text: Invalid input: expected string, received undefined",
      }),
    });
    expect(await tools.call(call('echo', '{"text":'), signal)).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'The arguments were not valid JSON.' }),
    });
    expect(await tools.call(call('nope', '{}'), signal)).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'There is no tool named nope.' }),
    });
    expect(await tools.call(call('refuse', '{}'), signal)).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'The calendar is not connected.' }),
    });
    expect(lines).toEqual([]);
    // An unexpected failure is logged for the operator; the model hears nothing of it.
    expect(await tools.call(call('crash', '{}'), signal)).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'The tool failed; try again later.' }),
    });
    expect(lines.map((l) => [l.msg, l.tool])).toEqual([['agent tool failed', 'crash']]);
    const cut = await tools.call(call('huge', '{}'), signal);
    expect(cut.ok).toBe(true);
    expect(cut.output.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_CHARS);
    expect(JSON.parse(cut.output).truncated).toBe(true);
  });

  it('ends a call that runs too long or is cancelled', async () => {
    const { logger } = captureLogger();
    const toolbox = new AgentToolbox([memory], logger, { timeoutMs: 50 });
    const tools = await toolbox.prepare(agent({ memory: true }), CONTEXT);
    expect(await tools.call(call('slow', '{}'), new AbortController().signal)).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'The tool did not answer within 1 s.' }),
    });
    const controller = new AbortController();
    const pending = tools.call(call('slow', '{}'), controller.signal);
    controller.abort();
    expect(await pending).toEqual({
      ok: false,
      output: JSON.stringify({ error: 'The call was cancelled.' }),
    });
  });
});

describe('plainText', () => {
  it('drops markup and decodes entities in search snippets', () => {
    expect(plainText('<strong>Opera</strong> &amp; ballet &#39;27 &#x263A;\n  tickets')).toBe(
      "Opera & ballet '27 ☺ tickets",
    );
  });
});
