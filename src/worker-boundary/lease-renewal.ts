/**
 * The one thing of the api a job's lease thread (worker/agent-session/lease-renewer.ts)
 * needs: renewing the job's lease on its session over a connection of its own. Kept apart
 * from `index.ts` so the thread loads the database driver and nothing else of the api.
 */

import { renewSessionLease } from '../agent-sessions/session-lease.ts';
import { connectDatabase } from '../db/connect.ts';

/** Where the session store is: the api's `DATABASE_URL` and `DATA_DIR`. */
export interface LeaseStoreLocation {
  databaseUrl: string | undefined;
  dataDir: string;
}

export interface LeaseRenewal {
  /** Renews the lease of generation `epoch`; false when the session is over or not its. */
  renew(sessionId: string, epoch: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Opens one connection (the job's WorkerApi migrated the schema already). */
export async function openLeaseRenewal(location: LeaseStoreLocation): Promise<LeaseRenewal> {
  const handle = await connectDatabase({ ...location, maxConnections: 1 });
  return {
    renew: (sessionId, epoch) => renewSessionLease(handle.db, sessionId, epoch, new Date()),
    close: () => handle.close(),
  };
}
