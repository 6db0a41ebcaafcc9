import { z } from 'zod';
import {
  type AgentDocument,
  codePointLength,
  DOCUMENT_CONTENT_TYPES,
  MAX_DOCUMENT_CHARS,
  MAX_DOCUMENTS_PER_END_USER,
  MAX_SHARED_DOCUMENTS_PER_AGENT,
  MAX_TITLE_CHARS,
} from './document-records.ts';

/**
 * A string of at most `max` code points (what JSON Schema's `maxLength` counts), not blank,
 * without the characters `forbidden` (a regular-expression class body) lists. The pattern
 * runs in linear time on the longest text.
 */
function textField(options: {
  max: number;
  forbidden: string;
  forbiddenName: string;
  description: string;
}) {
  return z
    .string()
    .regex(
      new RegExp(`^(?![\\t\\n\\r ]*$)[^${options.forbidden}]*$`),
      `must not be blank nor contain ${options.forbiddenName}`,
    )
    .refine((value) => codePointLength(value) <= options.max, `at most ${options.max} characters`)
    .meta({ minLength: 1, maxLength: options.max, description: options.description });
}

const titleSchema = textField({
  max: MAX_TITLE_CHARS,
  forbidden: '\\u0000-\\u001f\\u007f',
  forbiddenName: 'control characters (it is one line)',
  description: `One line naming the document (at most ${MAX_TITLE_CHARS} characters); the Agent is told the titles it can search.`,
});
// PostgreSQL cannot store NUL in text.
const textSchema = textField({
  max: MAX_DOCUMENT_CHARS,
  forbidden: '\\u0000',
  forbiddenName: 'NUL',
  description: `The document (at most ${MAX_DOCUMENT_CHARS.toLocaleString('en')} characters). Paragraphs are separated by a blank line.`,
});
const contentTypeSchema = z
  .enum(DOCUMENT_CONTENT_TYPES)
  .describe('How `text` is written. Default `text/plain`.');
const endUserIdSchema = z
  .uuid()
  .describe(
    "Your end user (UUID, as in session tokens and messages) who owns the document: only that end user's conversations search it. Omit for a document every end user's conversations search.",
  );

export const documentCreateSchema = z
  .strictObject({
    title: titleSchema,
    text: textSchema,
    content_type: contentTypeSchema.optional(),
    end_user_id: endUserIdSchema.optional(),
  })
  .meta({
    title: 'AgentDocumentCreate',
    description: `An Agent has at most ${MAX_SHARED_DOCUMENTS_PER_AGENT.toLocaleString('en')} shared documents and ${MAX_DOCUMENTS_PER_END_USER} of each end user.`,
  });

export const documentReplaceSchema = z
  .strictObject({
    title: titleSchema,
    text: textSchema,
    content_type: contentTypeSchema.optional(),
  })
  .meta({
    title: 'AgentDocumentReplace',
    description: 'The new title, text and format; the end user who owns the document stays.',
  });

export type DocumentCreateBody = z.infer<typeof documentCreateSchema>;
export type DocumentReplaceBody = z.infer<typeof documentReplaceSchema>;

export const documentSchema = z
  .object({
    id: z.string().describe('Document id (UUID).'),
    agent_id: z.string(),
    end_user_id: z
      .string()
      .nullable()
      .describe('The end user who owns it; null when all end users share it.'),
    title: z.string(),
    content_type: z.enum(DOCUMENT_CONTENT_TYPES),
    chars: z.number().int().describe('Length of the text in characters (Unicode code points).'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ title: 'AgentDocument' });

export const documentWithTextSchema = documentSchema
  .extend({ text: z.string() })
  .meta({ title: 'AgentDocumentWithText' });

export const documentListSchema = z
  .object({
    documents: z.array(documentSchema).describe('Newest first.'),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` for the next (older) page; null on the last page.'),
  })
  .meta({ title: 'AgentDocumentList' });

export const documentListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.uuid().optional().describe("The previous page's `next_cursor`."),
  end_user_id: z.uuid().optional().describe("Only this end user's own documents."),
  shared: z
    .enum(['true', 'false'])
    .optional()
    .describe("`true`: only shared documents; `false`: only end users' own documents."),
});

/** The API's shape of a document. */
export function documentBody(document: AgentDocument): z.infer<typeof documentSchema> {
  return {
    id: document.id,
    agent_id: document.agentId,
    end_user_id: document.endUserId,
    title: document.title,
    content_type: document.contentType,
    chars: document.chars,
    created_at: document.createdAt,
    updated_at: document.updatedAt,
  };
}
