import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from '../db/schema.ts';

/** One life of a process: the instance id its heartbeat uses and when this life began. */
export interface ProcessLife {
  instanceId: string;
  /** ISO 8601; rows created before it under the same id are a previous life's. */
  startedAt: string;
}

/**
 * Closes the rows that processes left open when they died: those of this instance id
 * created before this life (a restart under the same id), and those of any other instance
 * whose heartbeat is missing or older than `staleAfterMs`, whenever they were created (a
 * peer may die long after this process started). `find` reads the open rows of its table
 * that match the filter it is given (on the table's `instance_id` and `createdColumn`);
 * `close` ends one and says whether this call did (another sweeper may be first).
 * Returns how many rows this call closed.
 */
export async function closeRowsOfDeadProcesses<Row>(options: {
  db: Kysely<Database>;
  life: ProcessLife;
  staleAfterMs: number;
  createdColumn: string;
  find: (leftByDeadProcess: Expression<SqlBool>) => Promise<readonly Row[]>;
  close: (row: Row) => Promise<boolean>;
}): Promise<number> {
  const rows = await options.find(
    leftByDeadProcess(options.db, options.life, options.staleAfterMs, options.createdColumn),
  );
  let closed = 0;
  for (const row of rows) {
    if (await options.close(row)) closed++;
  }
  return closed;
}

/** The filter {@link closeRowsOfDeadProcesses} hands `find`. */
export function leftByDeadProcess(
  db: Kysely<Database>,
  life: ProcessLife,
  staleAfterMs: number,
  createdColumn: string,
): Expression<SqlBool> {
  const staleBefore = new Date(Date.now() - staleAfterMs).toISOString();
  const live = db
    .selectFrom('service_instances')
    .select('instance_id')
    .where('last_seen_at', '>=', staleBefore);
  const instance = sql.ref('instance_id');
  const created = sql.ref(createdColumn);
  return sql<SqlBool>`((${instance} = ${life.instanceId} and ${created} < ${life.startedAt}) or (${instance} != ${life.instanceId} and ${instance} not in ${live}))`;
}
