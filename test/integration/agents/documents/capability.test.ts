// The `documents` capability on both databases, through the toolbox conversations use: it
// is on when the publication says so, its instructions name the documents the conversation
// can search (a bounded list), and `search_documents` answers from the Agent's shared
// documents and the conversation's end user's own, with an empty result the model can read.
import type { PublishedAgent } from '../../../../src/agents/agent-records.ts';
import type { AgentToolContext } from '../../../../src/agents/capabilities/agent-tool.ts';
import {
  documentsCapability,
  LISTED_TITLES,
} from '../../../../src/agents/capabilities/documents/capability.ts';
import { DocumentStore } from '../../../../src/agents/capabilities/documents/document-store.ts';
import { agentCapabilities } from '../../../../src/agents/capabilities/registry.ts';
import { AgentToolbox } from '../../../../src/agents/capabilities/toolbox.ts';
import { loadConfig } from '../../../../src/app/config.ts';
import type { DatabaseHandle } from '../../../../src/db/connect.ts';
import { createLogger } from '../../../../src/observability/logger.ts';
import { SecretBox } from '../../../../src/secrets/secret-box.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../../fixtures/index.ts';
import type { TestDatabase } from '../../../helpers/database.ts';
import { publishedAgentSnapshot } from '../../../helpers/published-agent.ts';
import { seedWorkspace } from '../../../helpers/seed.ts';
import { KIM, loadCorpus, SAM, SHARED_DOCUMENTS } from './corpus.ts';

const logger = createLogger('silent');

describeEachDialect('the documents capability on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let toolbox: AgentToolbox;
  let agent: PublishedAgent;

  const context = (subject: PublishedAgent, endUserId: string | null): AgentToolContext => ({
    workspaceId: subject.workspaceId,
    environment: subject.environment,
    agentId: subject.agentId,
    endUserId,
    timeZone: null,
    origin: { kind: 'conversation', conversationId: '0190a5f4-0000-7000-8000-0000000c0001' },
  });
  /** What the model reads back from one `search_documents` call. */
  const searchAs = async (endUserId: string | null, query: unknown, subject = agent) => {
    const tools = await toolbox.prepare(subject, context(subject, endUserId));
    const outcome = await tools.call(
      { id: 'call_1', name: 'search_documents', arguments: JSON.stringify({ query }) },
      new AbortController().signal,
    );
    return { ...outcome, result: JSON.parse(outcome.output) };
  };

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    const { workspaceId } = await seedWorkspace(handle);
    agent = await publishedAgentSnapshot(handle.db, workspaceId, 'kb', { documentsEnabled: true });
    await loadCorpus(handle.db, agent.agentId);
    toolbox = new AgentToolbox([documentsCapability(handle.db)], logger);
  });

  it("is one of the deployment's capabilities, on only when the publication enables documents", async () => {
    const config = loadConfig({ DATA_DIR: database.dataDir, NODE_ENV: 'test' });
    const deployment = agentCapabilities({
      config,
      db: handle.db,
      secretBox: SecretBox.fromConfig({ dataDir: database.dataDir }),
      logger,
    });
    expect(deployment.map((capability) => capability.name)).toContain('documents');

    const on = await toolbox.prepare(agent, context(agent, SAM));
    expect(on.capabilities).toEqual(['documents']);
    expect(on.has('search_documents')).toBe(true);
    expect(on.definitions).toEqual([
      {
        name: 'search_documents',
        description: expect.stringContaining('knowledge base'),
        parameters: {
          type: 'object',
          properties: { query: expect.objectContaining({ type: 'string', maxLength: 500 }) },
          required: ['query'],
        },
      },
    ]);

    const plain = await publishedAgentSnapshot(handle.db, agent.workspaceId, 'no-documents');
    await new DocumentStore(handle.db).create(plain.agentId, null, SHARED_DOCUMENTS[0] as never);
    const off = await toolbox.prepare(plain, context(plain, SAM));
    expect(off.capabilities).toEqual([]);
    expect(off.definitions).toEqual([]);
    expect(off.instructions).toEqual([]);
  });

  it("names the shared documents and the end user's own, newest first, in the instructions", async () => {
    const [forSam] = (await toolbox.prepare(agent, context(agent, SAM))).instructions;
    expect(forSam).toContain('search_documents');
    expect(forSam).toContain('knowledge base of 7 documents');
    const listed = (forSam as string).split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toEqual([
      '- "Sam\'s order notes"',
      '- "退款政策"',
      '- "Employee handbook"',
      '- "Opening hours"',
      '- "Warranty"',
      '- "Shipping"',
      '- "Refund policy"',
    ]);
    const [forKim] = (await toolbox.prepare(agent, context(agent, KIM))).instructions;
    expect(forKim).toContain('"Kim\'s preferences"');
    expect(forKim).not.toContain("Sam's order notes");
    const [forNobody] = (await toolbox.prepare(agent, context(agent, null))).instructions;
    expect(forNobody).toContain('knowledge base of 6 documents');
  });

  it(`lists at most ${LISTED_TITLES} titles and counts the rest; an empty knowledge base says so`, async () => {
    const big = await publishedAgentSnapshot(handle.db, agent.workspaceId, 'big-kb', {
      documentsEnabled: true,
    });
    const store = new DocumentStore(handle.db);
    for (let i = 1; i <= LISTED_TITLES + 2; i++) {
      await store.create(big.agentId, null, {
        title: `Note ${i}\nwith  a second line`,
        text: `Note number ${i}.`,
        contentType: 'text/plain',
      });
    }
    const [instructions] = (await toolbox.prepare(big, context(big, SAM))).instructions;
    const lines = (instructions as string).split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(LISTED_TITLES + 1);
    expect(lines[0]).toBe(`- "Note ${LISTED_TITLES + 2} with a second line"`);
    expect(lines.at(-1)).toBe('- and 2 more');
    expect(instructions).toContain(`knowledge base of ${LISTED_TITLES + 2} documents`);

    const empty = await publishedAgentSnapshot(handle.db, agent.workspaceId, 'empty-kb', {
      documentsEnabled: true,
    });
    const prepared = await toolbox.prepare(empty, context(empty, SAM));
    expect(prepared.instructions).toEqual([expect.stringContaining('holds no documents yet')]);
    expect((await searchAs(SAM, 'refund', empty)).result).toEqual({
      results: [],
      note: expect.any(String),
    });
  });

  it('answers with the best excerpts, their document and title', async () => {
    const { ok, result } = await searchAs(SAM, 'Is water damage covered by the warranty?');
    expect(ok).toBe(true);
    expect(result.results.length).toBeGreaterThan(0);
    expect(result.results.length).toBeLessThanOrEqual(5);
    expect(result.results[0]).toEqual({
      document_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: 'Warranty',
      excerpt: SHARED_DOCUMENTS[2]?.text,
    });
    const stored = await new DocumentStore(handle.db).get(
      agent.agentId,
      result.results[0].document_id,
    );
    expect(stored?.title).toBe('Warranty');
  });

  it("never shows an end user another end user's documents", async () => {
    const sam = await searchAs(SAM, 'pineapple code word gift wrapping');
    expect(sam.result.results.map((hit: { title: string }) => hit.title)).toEqual([
      "Sam's order notes",
    ]);
    const kim = await searchAs(KIM, 'pineapple code word gift wrapping');
    expect(kim.result.results.map((hit: { title: string }) => hit.title)).toEqual([
      "Kim's preferences",
    ]);
    const nobody = await searchAs(null, 'pineapple code word gift wrapping');
    expect(nobody.result).toEqual({ results: [], note: expect.any(String) });
  });

  it('answers an empty result, and refuses arguments that do not fit, as results the model reads', async () => {
    expect((await searchAs(SAM, 'helicopter')).result).toEqual({
      results: [],
      note: 'No document matches this query; try other words.',
    });
    const blank = await searchAs(SAM, '');
    expect(blank.ok).toBe(false);
    expect(blank.result.error).toMatch(/query/);
    const long = await searchAs(SAM, 'refund '.repeat(100));
    expect(long.ok).toBe(false);
  });
});
