import { v7 as uuidv7 } from 'uuid';
import { AgentSessions } from '../../../src/agent-sessions/agent-sessions.ts';
import { CreditGrants } from '../../../src/billing/grants.ts';
import { Ledger } from '../../../src/billing/ledger.ts';
import { LlmLedger } from '../../../src/billing/llm-ledger.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { ApiError } from '../../../src/errors.ts';
import { Workspaces } from '../../../src/workspaces/workspaces.ts';
import { afterAll, beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { creditAccount, grantedMillicredits } from '../../helpers/credit.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { publishedAgentSnapshot } from '../../helpers/published-agent.ts';
import { openTestDatabase, seedWorkspace } from '../../helpers/seed.ts';

/** 10 credits per 1,000 characters: 100 characters reserve 1,000 millicredits. */
const PRICE = 10_000;

const start = (workspaceId: string, reserveChars: number) => ({
  requestId: uuidv7(),
  auditId: `aud_${uuidv7()}`,
  workspaceId,
  environment: 'production' as const,
  apiKeyId: null,
  transport: 'websocket' as const,
  voiceId: 'voice_test',
  route: 'native:test',
  outputFormat: 'pcm_24000',
  reserveChars,
  millicreditsPer1kChars: PRICE,
  passThrough: false,
});

const ended = (chars: number) => ({
  status: 'succeeded' as const,
  charsSynthesized: chars,
  providerAudioMs: 0,
  encodedDurationMs: 0,
});

describeEachDialect('credit grants on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  /** A second pool on PostgreSQL, as the operator tool is a second process. */
  let other: DatabaseHandle;

  beforeAll(async ({ databases }) => {
    ({ database, handle } = await databases.get(dialect));
    other = dialect === 'postgres' ? await openTestDatabase(database) : handle;
  });

  afterAll(async () => {
    if (other !== handle) await other?.close();
  });

  it('records the starting credit of a workspace as a grant', async () => {
    const ws = await seedWorkspace(handle, { credits: 12.5 });
    const account = await new CreditGrants(handle.db).account(ws.workspaceId);
    expect(account).toMatchObject({
      balanceCredits: 12.5,
      reservedCredits: 0,
      chargedCredits: 0,
      grantedCredits: 12.5,
      grants: [{ credits: 12.5, reason: 'workspace_created', balanceAfterCredits: 12.5 }],
    });
    const empty = await new Workspaces(handle.db).create({ name: 'No credit' });
    expect((await new CreditGrants(handle.db).account(empty.id)).grants).toEqual([]);
  });

  it('adds credit atomically under concurrent grants and keeps each as history', async () => {
    const ws = await seedWorkspace(handle, { credits: 0 });
    const grants = [new CreditGrants(handle.db), new CreditGrants(other.db)];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => grants[i % 2]!.add(ws.workspaceId, 1.5, `batch ${i}`)),
    );
    const account = await grants[0]!.account(ws.workspaceId, 100);
    expect(account.balanceCredits).toBe(30);
    expect(account.grantedCredits).toBe(30);
    expect(account.grants).toHaveLength(20);
    expect(new Set(account.grants.map((g) => g.note)).size).toBe(20);
    // Each grant saw a different balance: no two increments read the same one.
    expect(new Set(account.grants.map((g) => g.balanceAfterCredits)).size).toBe(20);
    await expect(grants[0]!.add(ws.workspaceId, 0)).rejects.toBeInstanceOf(ApiError);
    await expect(grants[0]!.add('no-such-workspace', 1)).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('sets a balance while reservations are open without losing their refunds', async () => {
    const ws = await seedWorkspace(handle, { credits: 10 });
    const ledger = new Ledger(handle.db, 'grants-test');
    const open = start(ws.workspaceId, 100);
    await ledger.start(open);
    expect((await creditAccount(handle, ws.workspaceId)).balance).toBe(9_000);

    const account = await new CreditGrants(other.db).set(ws.workspaceId, 50, 'top up to 50');
    expect(account).toMatchObject({ balanceCredits: 50, reservedCredits: 1, grantedCredits: 51 });
    expect(account.grants[0]).toMatchObject({ credits: 41, reason: 'set', note: 'top up to 50' });

    // The request ends having synthesized 40 characters: 400 charged, 600 refunded on top.
    expect(await ledger.finish(open.requestId, ended(40))).toBe(400);
    expect(await creditAccount(handle, ws.workspaceId)).toEqual({
      balance: 50_600,
      charged: 400,
      open: 0,
      openRows: 0,
    });
    expect(await grantedMillicredits(handle, ws.workspaceId)).toBe(51_000);

    // Lowering is a negative grant; a balance cannot be set below zero.
    const lowered = await new CreditGrants(handle.db).set(ws.workspaceId, 5);
    expect(lowered.grants[0]).toMatchObject({ credits: -45.6, reason: 'set' });
    await expect(new CreditGrants(handle.db).set(ws.workspaceId, -1)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('keeps grants = balance + charges + open reservations while sets race requests', async () => {
    const ws = await seedWorkspace(handle, { credits: 100 });
    const ledger = new Ledger(handle.db, 'grants-race');
    const grants = new CreditGrants(other.db);
    const requests = Array.from({ length: 30 }, () => start(ws.workspaceId, 100));
    await Promise.all([
      ...requests.map(async (request, i) => {
        await ledger.start(request);
        await ledger.reserveMore(request.requestId, ws.workspaceId, 50);
        await ledger.finish(request.requestId, ended(i * 5));
      }),
      ...[80, 120, 60, 90, 100].map((credits) => grants.set(ws.workspaceId, credits)),
    ]);
    const account = await creditAccount(handle, ws.workspaceId);
    expect(account.openRows).toBe(0);
    expect(account.balance + account.charged + account.open).toBe(
      await grantedMillicredits(handle, ws.workspaceId),
    );
  });

  it('counts language-model calls and Agent sessions in the account, which still adds up', async () => {
    // 10 credits granted; every ledger that takes credit runs against them.
    const ws = await seedWorkspace(handle, { credits: 10 });
    const snapshot = await publishedAgentSnapshot(handle.db, ws.workspaceId, 'billing-agent');

    // Speech: 100 characters charged 1,000 millicredits.
    const speech = new Ledger(handle.db, 'grants-all');
    const request = start(ws.workspaceId, 100);
    await speech.start(request);
    await speech.finish(request.requestId, ended(100));
    // A language-model call settled at 1,500 of its 3,000 reserved, and one still open with 2,000.
    const models = new LlmLedger(handle.db, 'grants-all');
    const call = (reserveMillicredits: number) => ({
      requestId: uuidv7(),
      auditId: `aud_${uuidv7()}`,
      workspaceId: ws.workspaceId,
      environment: 'production' as const,
      apiKeyId: null,
      source: 'messages',
      agentId: snapshot.agentId,
      publicationId: snapshot.publication.id,
      conversationId: null,
      conversationIsNew: false,
      userMessageId: null,
      provider: 'openai',
      // 1,000,000 millicredits per million tokens in and out: one millicredit a token.
      model: { name: 'gpt-4.1-mini', inputMillicreditsPer1M: 1e6, outputMillicreditsPer1M: 1e6 },
      reserveMillicredits,
    });
    const settled = call(3_000);
    await models.start(settled);
    await models.succeed(
      settled.requestId,
      { inputTokens: 1_200, outputTokens: 300 },
      async () => ({
        assistantMessageId: null,
      }),
    );
    await models.start(call(2_000));
    // An Agent session whose time costs 2,500.
    const sessions = new AgentSessions(handle.db, { heartbeatTimeoutMs: 60_000 });
    const session = async (millicredits: number) => {
      const id = uuidv7();
      await sessions.create({
        id,
        snapshot,
        apiKeyId: ws.productionKeyId,
        endUserId: undefined,
        room: `agent-session-${id}`,
        overrides: undefined,
        sessionContext: undefined,
        expiresAt: new Date(Date.now() + 60_000),
      });
      await sessions.markActive(id);
      await sessions.end(id, 'ended', 'user_left', { sessionMs: 60_000, millicredits });
      return id;
    };
    await session(2_500);

    const grants = new CreditGrants(handle.db);
    expect(await grants.account(ws.workspaceId)).toMatchObject({
      balanceCredits: 3,
      chargedCredits: 5,
      reservedCredits: 2,
      grantedCredits: 10,
    });

    // A session that costs more than is left takes what is left, and records exactly that.
    const short = await session(4_000);
    const report = await sessions.report(
      { workspaceId: ws.workspaceId, environment: 'production' },
      short,
    );
    expect(report?.chargedMillicredits).toBe(3_000);
    expect(await grants.account(ws.workspaceId)).toMatchObject({
      balanceCredits: 0,
      chargedCredits: 8,
      reservedCredits: 2,
      grantedCredits: 10,
    });
  });
});
