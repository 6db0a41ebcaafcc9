// Operator sign-in cannot be used to lock a member out, on both databases: failures are
// counted per (email, client address), the client address comes from the configured
// proxy header, and the slower per-email back-off still lets the right password in from
// an address that signed in before. The session cookie's `Secure` follows configuration
// (the public base URL's scheme), not the request's Host.
import type { DatabaseHandle } from '../../../src/db/connect.ts';
import {
  addOperator,
  beforeAll,
  describeEachDialect,
  expect,
  it,
  OPERATOR_PASSWORD,
} from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient } from '../../helpers/operator.ts';
import { type SeededWorkspace, seedWorkspace } from '../../helpers/seed.ts';
import type { RunningServer } from '../../helpers/server.ts';

const ATTEMPTS_PER_MINUTE = 3;
const EMAIL_FAILURES = 6;

describeEachDialect('operator sign-in throttling on %s', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: RunningServer;
  let ws: SeededWorkspace;

  beforeAll(async ({ databases, apis }) => {
    ({ database, handle } = await databases.get(dialect));
    ws = await seedWorkspace(handle);
    server = await apis.start(database, {
      env: {
        OPERATOR_SIGNIN_ATTEMPTS_PER_MINUTE: String(ATTEMPTS_PER_MINUTE),
        OPERATOR_SIGNIN_EMAIL_FAILURES: String(EMAIL_FAILURES),
        TRUSTED_PROXY_HEADER: 'x-forwarded-for',
        PUBLIC_BASE_URL: 'https://api.example.com',
      },
    });
  }, 60_000);

  /** A sign-in as if through the proxy, from `address` (after a spoofed entry). */
  const signInFrom = (address: string, email: string, password: string) =>
    new OperatorClient(server.url).request(
      'POST',
      '/sign-in',
      { email, password },
      { 'x-forwarded-for': `198.51.100.250, ${address}` },
    );

  it('lets the member in from another address while one address fails at their email', async () => {
    const email = 'victim@example.com';
    await addOperator(handle.db, ws, { email });
    for (let attempt = 0; attempt < ATTEMPTS_PER_MINUTE; attempt += 1) {
      expect((await signInFrom('203.0.113.66', email, 'guess')).status).toBe(401);
    }
    const attacker = await signInFrom('203.0.113.66', email, 'guess');
    expect([attacker.status, (attacker.body as { code: string }).code]).toEqual([
      429,
      'rate_limited',
    ]);
    // The member, from their own address, with the right password.
    const member = await signInFrom('192.0.2.10', email, OPERATOR_PASSWORD);
    expect(member.status, JSON.stringify(member.body)).toBe(200);
  });

  it('backs off unknown addresses after many failures at one email, but not known ones', async () => {
    const email = 'target@example.com';
    await addOperator(handle.db, ws, { email });
    // The member signed in from this address before.
    expect((await signInFrom('192.0.2.20', email, OPERATOR_PASSWORD)).status).toBe(200);
    // Guesses spread over addresses, each under its own per-address limit.
    for (let failure = 0; failure < EMAIL_FAILURES; failure += 1) {
      const address = `203.0.113.${100 + Math.floor(failure / ATTEMPTS_PER_MINUTE)}`;
      expect((await signInFrom(address, email, 'guess')).status).toBe(401);
    }
    // A new address is refused before its password is looked at, even the right one.
    const unknown = await signInFrom('203.0.113.200', email, OPERATOR_PASSWORD);
    expect([unknown.status, (unknown.body as { code: string }).code]).toEqual([
      429,
      'rate_limited',
    ]);
    expect(Number(unknown.headers.get('retry-after'))).toBeGreaterThan(60);
    // The known address still gets in.
    const known = await signInFrom('192.0.2.20', email, OPERATOR_PASSWORD);
    expect(known.status, JSON.stringify(known.body)).toBe(200);
    // Another email is not affected.
    await addOperator(handle.db, ws, { email: 'bystander@example.com', role: 'member' });
    expect(
      (await signInFrom('203.0.113.200', 'bystander@example.com', OPERATOR_PASSWORD)).status,
    ).toBe(200);
  });

  it('marks the cookie Secure from the https public base URL, whatever the Host', async () => {
    await addOperator(handle.db, ws, { email: 'cookie@example.com', role: 'member' });
    const reply = await signInFrom('192.0.2.30', 'cookie@example.com', OPERATOR_PASSWORD);
    expect(reply.status).toBe(200);
    // The request's Host is 127.0.0.1 (loopback); the deployment says https.
    expect(reply.headers.get('set-cookie')).toMatch(
      /^awp_operator_session=[A-Za-z0-9_-]{43}; Path=\/operator; Expires=[^;]+; HttpOnly; SameSite=Strict; Secure$/,
    );
    // The development listener has no public base URL and the api listens on loopback.
    const dev = await new OperatorClient(server.devUrl).signIn(
      'cookie@example.com',
      OPERATOR_PASSWORD,
    );
    expect(dev.status).toBe(200);
    expect(dev.headers.get('set-cookie')).not.toContain('Secure');
  });
});
