import { type Expression, sql } from 'kysely';
import type { Environment } from '../app/config/environments.ts';

/** The tenant a row belongs to: a workspace and one of its environments. */
export interface TenantScope {
  workspaceId: string;
  environment: Environment;
}

/** A query that takes `where(column, '=', value)` filters (select, update, delete). */
interface Filterable<Self> {
  where(lhs: Expression<unknown>, op: '=', rhs: string): Self;
}

/**
 * Narrows a query to one tenant: `workspace_id = ? and environment = ?`, the columns of
 * `table` (a table name or alias) when given. Every table that holds tenant rows has both
 * columns; a read or write filtered by only one would cross environments.
 */
export function whereScope<Q extends Filterable<Q>>(
  query: Q,
  scope: TenantScope,
  table?: string,
): Q {
  const column = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  return query
    .where(column('workspace_id'), '=', scope.workspaceId)
    .where(column('environment'), '=', scope.environment);
}

/** {@link whereScope} for a query chain: `query.$call(inScope(scope))`. */
export function inScope(scope: TenantScope, table?: string) {
  return <Q extends Filterable<Q>>(query: Q): Q => whereScope(query, scope, table);
}
