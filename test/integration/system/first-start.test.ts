// A first `npm start`: a development workspace with two keys shown once on the terminal
// (never in the logs), and a published starter Agent to talk to in the demo page.
import { beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import type { TestDatabase } from '../../helpers/database.ts';
import { OperatorClient } from '../../helpers/operator.ts';
import type { RunningServer } from '../../helpers/server.ts';

describe('first start with BOOTSTRAP_WORKSPACE', () => {
  dialectSuite('sqlite');
  let database: TestDatabase;
  let server: RunningServer;

  beforeAll(async ({ databases, apis }) => {
    database = await databases.empty('sqlite');
    server = await apis.start(database, {
      env: { BOOTSTRAP_WORKSPACE: 'true', DEMO_PAGE: 'true' },
    });
  });

  const developmentKey = () => {
    const match = /development key: +(awp_[0-9A-Za-z]{40})/.exec(server.output());
    if (!match?.[1]) throw new Error(`no development key in:\n${server.output()}`);
    return match[1];
  };

  it('shows the keys, the URLs and the demo page once, and never logs a key', () => {
    const output = server.output();
    expect(output).toContain('Created a development workspace');
    expect(output).toMatch(/production key: +awp_[0-9A-Za-z]{40}/);
    expect(output).toContain(`Talk to an Agent in your browser: ${server.devUrl}/demo`);
    const key = developmentKey();
    for (const line of server.logs()) expect(JSON.stringify(line)).not.toContain(key);
  });

  it('shows the dashboard and its owner sign-in once; the password works and is never logged', async () => {
    const output = server.output();
    expect(output).toContain(
      `Operator dashboard (keys, voices, cloning): ${server.devUrl}/operator`,
    );
    const match = /dashboard sign-in: +owner@localhost \/ ([A-Za-z0-9_-]{24})$/m.exec(output);
    if (!match?.[1]) throw new Error(`no dashboard sign-in in:\n${output}`);
    const password = match[1];
    for (const line of server.logs()) expect(JSON.stringify(line)).not.toContain(password);
    const client = new OperatorClient(server.devUrl);
    expect((await client.signIn('owner@localhost', password)).status).toBe(200);
    const me = await client.request('GET', '/me');
    expect(me.body).toMatchObject({ member: { email: 'owner@localhost', role: 'owner' } });
    const page = await fetch(`${server.devUrl}/operator`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"></div>');
  });

  it('has a published starter Agent in the development environment', async () => {
    const response = await fetch(`${server.devUrl}/v1/agents`, {
      headers: { authorization: `Bearer ${developmentKey()}` },
    });
    expect(response.status).toBe(200);
    const { agents } = (await response.json()) as {
      agents: { slug: string; active_publication: { version: number } | null; voice_id: string }[];
    };
    expect(agents.map((a) => a.slug)).toEqual(['guide']);
    expect(agents[0]?.active_publication?.version).toBe(1);
    expect(['voice_AG63NAA6qYXtuK33ioJM', 'voice_en0ITv6xOZPfMiT0sGIW']).toContain(
      agents[0]?.voice_id,
    );
  });
});
