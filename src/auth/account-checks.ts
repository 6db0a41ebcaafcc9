import type { WorkspaceStatus } from '../db/schema.ts';
import { ApiError } from '../errors.ts';
import type { Capability } from '../workspaces/capabilities.ts';

/** What the per-request account checks read about a workspace. */
export interface AccountState {
  readonly workspaceStatus: WorkspaceStatus;
  readonly billingProvisioned: boolean;
  readonly capabilities: ReadonlySet<Capability>;
}

/**
 * The account checks of the spec, in its order, for any caller of a workspace (an API key,
 * a stream token, a signed-in operator): suspension (403 `organization_suspended`), billing
 * account (503 `organization_account_missing`), product (403 `capability_disabled`). A list
 * of products is passed when any one of them opens the route.
 */
export function checkAccount(
  account: AccountState,
  capability: Capability | readonly Capability[] | undefined,
): void {
  if (account.workspaceStatus === 'suspended') {
    throw new ApiError('organization_suspended', 'The workspace is suspended.');
  }
  if (!account.billingProvisioned) {
    throw new ApiError(
      'organization_account_missing',
      'The workspace billing account is not provisioned.',
    );
  }
  if (capability === undefined) return;
  const products: readonly Capability[] =
    typeof capability === 'string' ? [capability] : capability;
  if (!products.some((product) => account.capabilities.has(product))) {
    throw new ApiError(
      'capability_disabled',
      `The ${products.join(' or ')} product is not enabled for this workspace.`,
    );
  }
}
