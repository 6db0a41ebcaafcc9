// The calendar capability in a text conversation, end to end: the end user connects their
// Google Calendar through the consent flow (against a fake Google), then the Agent's model
// reads it with a tool call in the end user's time zone and answers from it.
import { randomUUID } from 'node:crypto';
import { FakeGoogle } from '../../fakes/google.ts';
import { afterAll, beforeAll, describe, dialectSuite, expect, it } from '../../fixtures/index.ts';
import { type ConversationRig, startConversationRig } from '../../helpers/conversations.ts';
import { CALLBACK_PATH, connectCalendar } from '../../helpers/google-calendar.ts';

type ChatBody = { messages: { role: string; content: string | null }[] };

describe('the calendar capability in text conversations', () => {
  dialectSuite('sqlite');
  let fake: FakeGoogle;
  let rig: ConversationRig;
  let agentId: string;
  const endUser = randomUUID();

  beforeAll(async ({ databases, apis }) => {
    fake = await FakeGoogle.start();
    rig = await startConversationRig(await databases.get('sqlite'), apis, fake.env());
    fake.allowRedirectUri(`${rig.server.url}${CALLBACK_PATH}`);
    agentId = await rig.publishedAgent({ calendar_enabled: true });
  });
  afterAll(async () => {
    await rig?.close();
    await fake?.close();
  });

  it('asks the user to connect a calendar until they have, then reads it in their time zone', async () => {
    rig.openai.script({ text: ['Please connect your calendar first.'] });
    const before = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'What is on my calendar?',
      end_user_id: endUser,
      time_zone: 'Europe/Paris',
    });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const unconnected = (rig.openai.requests.at(-1)?.body as ChatBody | undefined)?.messages[1]
      ?.content;
    expect(unconnected).toContain('the user has not connected a Google Calendar');

    const ada = fake.account('ada@example.com', [
      {
        summary: 'Dentist',
        start: { dateTime: new Date(Date.now() + 86_400_000).toISOString() },
        end: { dateTime: new Date(Date.now() + 90_000_000).toISOString() },
      },
    ]);
    const { callback } = await connectCalendar(rig.api, fake, endUser, ada);
    expect(callback.status).toBe(200);

    rig.openai
      .script({
        text: [],
        toolCalls: [{ id: 'call_cal', name: 'list_calendar_events', arguments: '{}' }],
      })
      .script({ text: ['Tomorrow you see the dentist.'] });
    const sent = rig.openai.requests.length;
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      conversation_id: before.body.conversation_id,
      text: 'And now?',
      end_user_id: endUser,
      time_zone: 'Europe/Paris',
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.message.text).toBe('Tomorrow you see the dentist.');
    const [asked, answered] = rig.openai.requests.slice(sent).map((r) => r.body as ChatBody);
    expect(asked?.messages[1]?.content).toContain(
      "the user's calendar (ada@example.com) is connected",
    );
    expect(asked?.messages[1]?.content).toContain("in the user's time zone, Europe/Paris");
    const listed = fake.requests.filter((r) => r.path === '/calendar/v3/calendars/primary/events');
    expect(listed).toHaveLength(1);
    const result = JSON.parse(answered?.messages.at(-1)?.content ?? 'null');
    expect(JSON.stringify(result)).toContain('Dentist');
  });

  it('refuses a time zone that is not one', async () => {
    const reply = await rig.api('POST', `/v1/agents/${agentId}/messages`, {
      text: 'Hi',
      end_user_id: endUser,
      time_zone: 'Mars/Olympus',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('invalid_request');
  });
});
