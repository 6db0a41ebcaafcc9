import { z } from 'zod';
import type { AnyRoute } from '../../http/route.ts';
import { VENDOR_KINDS } from '../../tts/providers/vendors.ts';
import type { ProviderAccount, ProviderAccounts } from '../../voices/provider-accounts.ts';
import { VOICE_MANAGER_ROLES } from '../../workspaces/members.ts';
import type { OperatorGuard } from '../guard.ts';
import { operatorRoute } from '../route.ts';

/** An account as operators see it: the key is never echoed, only its last four characters. */
export function accountView(account: ProviderAccount) {
  return {
    id: account.id,
    provider: account.provider,
    label: account.label,
    key_last4: account.keyLast4,
    created_at: account.createdAt,
  };
}

const addSchema = z.strictObject({
  provider: z.enum(VENDOR_KINDS),
  label: z.string().trim().min(1).max(100),
  api_key: z.string().min(1).max(512),
});

/** Provider accounts: the workspace's own credentials at vendors (configuring voices). */
export function accountRoutes(guard: OperatorGuard, accounts: ProviderAccounts): AnyRoute[] {
  return [
    operatorRoute(guard, {
      method: 'GET',
      path: '/provider-accounts',
      operationId: 'operatorListProviderAccounts',
      summary: 'The workspace’s provider accounts.',
      roles: VOICE_MANAGER_ROLES,
      handle: async ({ member }) => ({
        status: 200,
        body: { provider_accounts: (await accounts.list(member.workspaceId)).map(accountView) },
      }),
    }),
    operatorRoute(guard, {
      method: 'POST',
      path: '/provider-accounts',
      operationId: 'operatorAddProviderAccount',
      summary: 'Stores a vendor API key, sealed at rest.',
      roles: VOICE_MANAGER_ROLES,
      body: addSchema,
      handle: async ({ member, body }) => {
        const account = await accounts.create({
          workspaceId: member.workspaceId,
          provider: body.provider,
          label: body.label,
          apiKey: body.api_key,
        });
        return { status: 201, body: { provider_account: accountView(account) } };
      },
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/provider-accounts/:accountId',
      operationId: 'operatorRemoveProviderAccount',
      summary: 'Removes an account no voice route uses.',
      roles: VOICE_MANAGER_ROLES,
      errors: ['not_found', 'invalid_request'],
      handle: async ({ member, request }) => {
        await accounts.remove(member.workspaceId, request.params.accountId ?? '');
        return { status: 204 };
      },
    }),
  ];
}
