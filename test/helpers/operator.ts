import type { Kysely } from 'kysely';
import type { Database, Role } from '../../src/db/schema.ts';
import { setMemberPassword } from '../../src/operator/sessions.ts';
import { Members } from '../../src/workspaces/members.ts';

export interface OperatorResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/**
 * A browser-like client of the operator API: keeps the session cookie it was given and
 * sends the page's Origin on every request, as a dashboard page on the same host would.
 */
export class OperatorClient {
  cookie: string | undefined;

  constructor(
    readonly baseUrl: string,
    readonly origin: string | null = baseUrl,
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<OperatorResponse> {
    const response = await fetch(`${this.baseUrl}/operator/api${path}`, {
      method,
      headers: {
        ...(this.origin === null ? {} : { origin: this.origin }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  signIn(email: string, password: string, workspaceId?: string): Promise<OperatorResponse> {
    return this.request('POST', '/sign-in', {
      email,
      password,
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    });
  }
}

/** Adds a member with a password through the domain API (what `awp member ...` runs). */
export async function addMember(
  db: Kysely<Database>,
  workspaceId: string,
  email: string,
  role: Role,
  password: string,
): Promise<void> {
  await new Members(db).add(workspaceId, email, role);
  await setMemberPassword(db, email, password);
}

/** A signed-in client; throws when the sign-in fails. */
export async function signedIn(
  baseUrl: string,
  email: string,
  password: string,
): Promise<OperatorClient> {
  const client = new OperatorClient(baseUrl);
  const response = await client.signIn(email, password);
  if (response.status !== 200) {
    throw new Error(
      `sign-in of ${email} failed: ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  return client;
}
