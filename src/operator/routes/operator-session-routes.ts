import { z } from 'zod';
import { clientAddress } from '../../http/client-address.ts';
import type { AnyRoute } from '../../http/route.ts';
import { parseJsonBody, validate } from '../../http/validate.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal, OperatorSessions } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

const signInSchema = z.strictObject({
  email: z.string().min(3).max(320),
  password: z.string().min(1).max(1024),
  workspace_id: z.string().min(1).max(100).optional(),
});

/** The member as the operator API shows it. */
export function memberView(member: OperatorPrincipal) {
  return {
    user_id: member.userId,
    email: member.email,
    workspace_id: member.workspaceId,
    role: member.role,
    session_expires_at: member.expiresAt,
  };
}

const changePasswordSchema = z.strictObject({
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(1).max(1024),
});

/** Sign-in, sign-out and the signed-in member. */
export function operatorSessionRoutes(
  guard: OperatorGuard,
  sessions: OperatorSessions,
  options: {
    demoPage: boolean;
    /** `TRUSTED_PROXY_HEADER`: where a reverse proxy puts the client's address. */
    trustedProxyHeader: string | undefined;
  },
): AnyRoute[] {
  return [
    {
      method: 'POST',
      path: '/operator/api/sign-in',
      operationId: 'operatorSignIn',
      summary: 'Signs a workspace member in with email and password; sets the session cookie.',
      tags: ['operator'],
      // A sign-in form posted from another site would sign the victim into the attacker's
      // account (login CSRF): the Origin check applies here too, before the body is read.
      auth: { kind: 'guard', check: async (request) => guard.checkOrigin(request) },
      responses: {},
      errors: [
        'invalid_request',
        'unauthorized',
        'forbidden',
        'organization_suspended',
        'rate_limited',
      ],
      handle: async ({ request }) => {
        const body = validate(
          signInSchema,
          parseJsonBody(request.body, request.headers['content-type']),
          'body',
        );
        const { sessionId, principal } = await sessions.signIn({
          email: body.email,
          password: body.password,
          workspaceId: body.workspace_id,
          remoteAddress: clientAddress(request, options.trustedProxyHeader),
        });
        return {
          status: 200,
          headers: {
            'set-cookie': guard.sessionCookie(request, sessionId, principal.expiresAt),
            'cache-control': 'no-store',
          },
          body: { member: memberView(principal) },
        };
      },
    },
    {
      method: 'POST',
      path: '/operator/api/sign-out',
      operationId: 'operatorSignOut',
      summary: 'Ends the session and clears the cookie.',
      tags: ['operator'],
      auth: { kind: 'guard', check: async (request) => guard.checkOrigin(request) },
      responses: {},
      errors: ['forbidden'],
      handle: async ({ request }) => {
        const sessionId = guard.sessionId(request);
        if (sessionId) await sessions.signOut(sessionId);
        return { status: 204, headers: { 'set-cookie': guard.clearedCookie(request) } };
      },
    },
    operatorRoute(guard, {
      method: 'POST',
      path: '/me/password',
      operationId: 'operatorChangeOwnPassword',
      summary:
        'Changes the signed-in member’s own password (the current one required); their other sessions end.',
      roles: EVERY_ROLE,
      body: changePasswordSchema,
      errors: ['invalid_request', 'rate_limited'],
      handle: async ({ member, request, body }) => {
        await sessions.changeOwnPassword({
          principal: member,
          sessionId: guard.sessionId(request) ?? '',
          currentPassword: body.current_password,
          newPassword: body.new_password,
        });
        return { status: 204 };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/me',
      operationId: 'operatorMe',
      summary:
        'The signed-in member and their role, the environment of this address, and whether it serves the demo page.',
      roles: EVERY_ROLE,
      handle: async ({ member, request }) => ({
        status: 200,
        body: {
          member: memberView(member),
          environment: request.environment,
          // The demo page is served on the development address only (DEMO_PAGE).
          demo_page: options.demoPage && request.environment === 'development',
        },
      }),
    }),
  ];
}
