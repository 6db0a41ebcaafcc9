import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { CreditGrants, recordGrant } from '../billing/grants.ts';
import { MILLICREDITS_PER_CREDIT } from '../billing/pricing.ts';
import type { Database, WorkspaceStatus } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from './capabilities.ts';

/** Throws `not_found` unless the workspace exists. */
export async function requireWorkspace(db: Kysely<Database>, id: string): Promise<void> {
  const found = await db
    .selectFrom('workspaces')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) throw new ApiError('not_found', `No workspace ${id}.`);
}

export interface Workspace {
  id: string;
  name: string;
  status: WorkspaceStatus;
  billingProvisioned: boolean;
  credits: number;
  capabilities: Capability[];
  createdAt: string;
}

export interface CreateWorkspaceInput {
  name: string;
  capabilities?: Capability[];
  billingProvisioned?: boolean;
  credits?: number;
}

/** Workspaces: status, billing account, credit balance, capabilities. */
export class Workspaces {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: CreateWorkspaceInput): Promise<Workspace> {
    const id = uuidv7();
    const now = new Date().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('workspaces')
        .values({
          id,
          name: input.name,
          status: 'active',
          billing_provisioned: input.billingProvisioned ? 1 : 0,
          credit_balance_millicredits: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      // Starting credit is a grant like any other, so grants account for every credit.
      const starting = Math.round((input.credits ?? 0) * MILLICREDITS_PER_CREDIT);
      if (starting > 0) {
        await recordGrant(trx, {
          workspaceId: id,
          millicredits: starting,
          reason: 'workspace_created',
        });
      }
      for (const capability of new Set(input.capabilities ?? [])) {
        await trx
          .insertInto('workspace_capabilities')
          .values({ workspace_id: id, capability })
          .execute();
      }
    });
    return this.get(id);
  }

  async get(id: string): Promise<Workspace> {
    const row = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw new ApiError('not_found', `No workspace ${id}.`);
    const capabilities = await this.db
      .selectFrom('workspace_capabilities')
      .select('capability')
      .where('workspace_id', '=', id)
      .orderBy('capability')
      .execute();
    return {
      id: row.id,
      name: row.name,
      status: row.status,
      billingProvisioned: Number(row.billing_provisioned) === 1,
      credits: Number(row.credit_balance_millicredits) / MILLICREDITS_PER_CREDIT,
      capabilities: capabilities.map((c) => c.capability as Capability),
      createdAt: row.created_at,
    };
  }

  async list(): Promise<Workspace[]> {
    const rows = await this.db
      .selectFrom('workspaces')
      .select('id')
      .orderBy('created_at')
      .execute();
    return Promise.all(rows.map((row) => this.get(row.id)));
  }

  /**
   * Suspends or resumes a workspace. A suspension also ends the work already running in it
   * within seconds, whichever process made it: every api process watches this state
   * (`CredentialWatch` for open sockets, `RevokedSessionSweep` for Agent sessions).
   */
  async setStatus(id: string, status: WorkspaceStatus): Promise<Workspace> {
    await this.update(id, { status });
    return this.get(id);
  }

  async provisionBilling(id: string): Promise<Workspace> {
    await this.update(id, { billing_provisioned: 1 });
    return this.get(id);
  }

  /** Sets the available balance by a grant of the difference (see {@link CreditGrants.set}). */
  async setCredits(id: string, credits: number, note?: string): Promise<Workspace> {
    await new CreditGrants(this.db).set(id, credits, note);
    return this.get(id);
  }

  async setCapability(id: string, capability: Capability, enabled: boolean): Promise<Workspace> {
    await this.get(id);
    if (enabled) {
      await this.db
        .insertInto('workspace_capabilities')
        .values({ workspace_id: id, capability })
        .onConflict((oc) => oc.columns(['workspace_id', 'capability']).doNothing())
        .execute();
    } else {
      await this.db
        .deleteFrom('workspace_capabilities')
        .where('workspace_id', '=', id)
        .where('capability', '=', capability)
        .execute();
    }
    return this.get(id);
  }

  private async update(
    id: string,
    values: Partial<{
      status: WorkspaceStatus;
      billing_provisioned: number;
    }>,
  ): Promise<void> {
    const result = await this.db
      .updateTable('workspaces')
      .set({ ...values, updated_at: new Date().toISOString() })
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ApiError('not_found', `No workspace ${id}.`);
  }
}
