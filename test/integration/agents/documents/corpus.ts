import type { Kysely } from 'kysely';
import type { DocumentContent } from '../../../../src/agents/capabilities/documents/document-records.ts';
import { DocumentStore } from '../../../../src/agents/capabilities/documents/document-store.ts';
import type { Database } from '../../../../src/db/schema.ts';

/** Two end users of the Agent, as a backend's identity system names them. */
export const SAM = '0190a5f4-0000-7000-8000-00000000a001';
export const KIM = '0190a5f4-0000-7000-8000-00000000b002';

const plain = (title: string, text: string): DocumentContent => ({
  title,
  text,
  contentType: 'text/plain',
});

/** A long document: many sections, so it is cut into several chunks. */
function handbook(): string {
  const filler = (topic: string) =>
    Array.from(
      { length: 12 },
      (_, i) =>
        `Section ${i + 1} on ${topic} explains how teams plan their weekly work and report progress to their managers.`,
    ).join(' ');
  return [
    `# Employee handbook\n\n${filler('onboarding')}`,
    filler('meetings'),
    'Parental leave: every employee may take sixteen weeks of paid parental leave after the birth or adoption of a child, and may split it into two periods within the first year.',
    filler('travel'),
    filler('equipment'),
  ].join('\n\n');
}

/** The shared documents of the knowledge base, in creation order. */
export const SHARED_DOCUMENTS: readonly DocumentContent[] = [
  plain(
    'Refund policy',
    'Customers may request a refund within 30 days of delivery. Refunds are issued to the original payment method within 5 business days after we receive the returned item.\n\nItems that arrive damaged are refunded in full, shipping included; send a photo of the damage with your request.',
  ),
  plain(
    'Shipping',
    'We ship to 40 countries. Standard shipping takes 3 to 5 business days; express shipping arrives the next business day when ordered before noon. Shipping is free on orders over 50 euros.',
  ),
  plain(
    'Warranty',
    'All devices carry a two-year warranty covering manufacturing defects. The warranty does not cover water damage, drops or repairs made by others. To claim the warranty, bring the device and its receipt to any store.',
  ),
  plain(
    'Opening hours',
    'Our stores are open Monday to Saturday from 9 am to 8 pm, and on Sunday from 11 am to 5 pm. On public holidays they close at 2 pm.',
  ),
  { title: 'Employee handbook', text: handbook(), contentType: 'text/markdown' },
  plain('退款政策', '收货后30天内可以申请退款。退款将在五个工作日内退回原支付方式。'),
];

/** Each end user's own documents. */
export const OWN_DOCUMENTS: Readonly<Record<string, readonly DocumentContent[]>> = {
  [SAM]: [
    plain(
      "Sam's order notes",
      'Order 4521 for Sam: the customer asked for gift wrapping and a handwritten card.',
    ),
  ],
  [KIM]: [
    plain(
      "Kim's preferences",
      'Kim prefers delivery on Fridays. Her code word at the door is pineapple.',
    ),
  ],
};

/** Writes the knowledge base above for `agentId`, shared documents first. */
export async function loadCorpus(db: Kysely<Database>, agentId: string): Promise<void> {
  const store = new DocumentStore(db);
  for (const document of SHARED_DOCUMENTS) await store.create(agentId, null, document);
  for (const [endUserId, documents] of Object.entries(OWN_DOCUMENTS)) {
    for (const document of documents) await store.create(agentId, endUserId, document);
  }
}

const VOCABULARY = (
  'the a of and to in is for on with as by at from that this it be are was or an which ' +
  'customer order store device battery screen cable charger delivery parcel courier invoice ' +
  'payment card account password login email phone support ticket agent team manager ' +
  'product price discount coupon voucher stock warehouse supplier contract office meeting ' +
  'report schedule week month year morning evening holiday weekend service repair replacement ' +
  'policy rule request approval review update version release feature issue problem solution ' +
  'quick slow new old large small red blue green black white silver first second third last'
).split(' ');

/**
 * `chars` characters of sentences drawn from a fixed vocabulary by a seeded generator: the
 * same text for the same seed, with word counts that differ between chunks.
 */
export function fillerText(seed: number, chars: number): string {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const paragraphs: string[] = [];
  let length = 0;
  while (length < chars) {
    const sentences: string[] = [];
    for (let s = 0; s < 4 + Math.floor(next() * 6); s++) {
      const words = Array.from(
        { length: 6 + Math.floor(next() * 14) },
        () => VOCABULARY[Math.floor(next() * VOCABULARY.length)],
      );
      const sentence = words.join(' ');
      sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
    }
    const paragraph = sentences.join(' ');
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return paragraphs.join('\n\n').slice(0, chars);
}
