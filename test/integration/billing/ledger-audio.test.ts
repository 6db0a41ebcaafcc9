// What the ledger records about persisted audio: many rows marked at once, each with its
// own location, and the lookup the persistence sweeper rebuilds its batches from.
import { v7 as uuidv7 } from 'uuid';
import { Ledger, type LedgerOutcome } from '../../../src/billing/ledger.ts';
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import { beforeAll, describeEachDialect, expect, it } from '../../fixtures/index.ts';
import { seedWorkspace } from '../../helpers/seed.ts';

const outcome = (status: LedgerOutcome['status']): LedgerOutcome => ({
  status,
  charsSynthesized: status === 'succeeded' ? 10 : 0,
  providerAudioMs: 0,
  encodedDurationMs: 0,
});

describeEachDialect('ledger rows of persisted audio on %s', (dialect) => {
  let handle: DatabaseHandle;
  let ledger: Ledger;
  let workspaceId: string;

  beforeAll(async ({ databases }) => {
    ({ handle } = await databases.get(dialect));
    ledger = new Ledger(handle.db, 'ledger-audio-test');
    workspaceId = (await seedWorkspace(handle)).workspaceId;
  });

  const request = async (
    status: LedgerOutcome['status'] | 'started',
    outputFormat = 'pcm_24000',
  ) => {
    const requestId = uuidv7();
    await ledger.start({
      requestId,
      auditId: `aud_${uuidv7()}`,
      workspaceId,
      environment: 'development',
      apiKeyId: null,
      transport: 'websocket',
      voiceId: 'voice_test',
      route: 'native:test',
      outputFormat,
      reserveChars: 10,
      millicreditsPer1kChars: 10_000,
      passThrough: false,
    });
    if (status !== 'started') await ledger.finish(requestId, outcome(status));
    return requestId;
  };

  const persisted = (requestIds: string[]) =>
    handle.db
      .selectFrom('synthesis_requests')
      .select(['request_id', 'audio_persisted', 'audio_location'])
      .where('request_id', 'in', requestIds)
      .orderBy('request_id')
      .execute();

  it('marks many rows in one call, each with its own location, more than one statement holds', async () => {
    // 501: one more row than a statement takes.
    const ids: string[] = [];
    for (let i = 0; i < 501; i++) ids.push(await request('succeeded'));
    const unmarked = await request('succeeded');
    const entries = ids.map((requestId) => ({
      requestId,
      location: `file:///audio/${requestId}.pcm`,
    }));

    await ledger.markAudioPersistedMany([
      ...entries,
      { requestId: uuidv7(), location: 'file:///x' },
    ]);
    // Marking again (a retried batch) changes nothing.
    await ledger.markAudioPersistedMany(entries.slice(0, 3));

    expect(await persisted([...ids, unmarked])).toEqual(
      [
        ...entries.map((e) => ({
          request_id: e.requestId,
          audio_persisted: 1,
          audio_location: e.location,
        })),
        { request_id: unmarked, audio_persisted: 0, audio_location: null },
      ].sort((a, b) => a.request_id.localeCompare(b.request_id)),
    );
    await expect(ledger.markAudioPersistedMany([])).resolves.toBeUndefined();
  });

  it('finds the succeeded requests among ids, with what names their audio', async () => {
    const succeeded = await request('succeeded', 'opus_48000_64');
    const others = [await request('failed'), await request('cancelled'), await request('started')];

    const found = await ledger.succeededRequests([succeeded, ...others, uuidv7()]);

    expect(found).toEqual([
      {
        requestId: succeeded,
        workspaceId,
        environment: 'development',
        outputFormat: 'opus_48000_64',
        createdAt: expect.any(Date),
      },
    ]);
    const row = await handle.db
      .selectFrom('synthesis_requests')
      .select('created_at')
      .where('request_id', '=', succeeded)
      .executeTakeFirstOrThrow();
    expect(found[0]!.createdAt.toISOString()).toBe(new Date(row.created_at).toISOString());
  });
});
