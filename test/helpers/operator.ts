import type { Kysely } from 'kysely';
import type { Database, Role } from '../../src/db/schema.ts';
import { setMemberPassword } from '../../src/operator/operator-sessions.ts';
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

  /** A request with a JSON body (when `body` is given); keeps a session cookie it is sent. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<OperatorResponse> {
    return this.send(
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    );
  }

  /**
   * A `multipart/form-data` upload as the dashboard sends it: a JSON `metadata` field and
   * the files, each under its field name.
   */
  upload(
    path: string,
    metadata: unknown,
    files: { field: string; fileName: string; contentType: string; data: Buffer }[],
    headers: Record<string, string> = {},
  ): Promise<OperatorResponse> {
    const form = new FormData();
    form.set('metadata', JSON.stringify(metadata));
    for (const file of files) {
      form.append(
        file.field,
        new Blob([new Uint8Array(file.data)], { type: file.contentType }),
        file.fileName,
      );
    }
    return this.send('POST', path, form, headers);
  }

  /** Any request, sent as a dashboard page on the same host would send it. */
  async send(
    method: string,
    path: string,
    body: FormData | string | Blob | undefined,
    headers: Record<string, string> = {},
  ): Promise<OperatorResponse> {
    const response = await fetch(`${this.baseUrl}/operator/api${path}`, {
      method,
      headers: {
        ...(this.origin === null ? {} : { origin: this.origin }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    return { status: response.status, headers: response.headers, body: await readBody(response) };
  }

  signIn(email: string, password: string, workspaceId?: string): Promise<OperatorResponse> {
    return this.request('POST', '/sign-in', {
      email,
      password,
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    });
  }
}

/** JSON bodies parsed; audio, images and other binary bodies as a Buffer; text as is. */
async function readBody(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (
    type.startsWith('audio/') ||
    type.startsWith('image/') ||
    type === 'application/octet-stream'
  ) {
    return Buffer.from(await response.arrayBuffer());
  }
  const text = await response.text();
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text; // not JSON
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
