import type { z } from 'zod';
import { requireAuth } from '../../../auth/context.ts';
import type { TenantScope } from '../../../db/tenant-scope.ts';
import { type AnyRoute, defineRoute } from '../../../http/route.ts';
import type { HttpRequest } from '../../../http/types.ts';
import { DOCUMENT_BODY_LIMIT_BYTES } from './document-records.ts';
import type { AgentDocuments } from './documents.ts';
import {
  type DocumentCreateBody,
  type DocumentReplaceBody,
  documentBody,
  documentCreateSchema,
  documentListQuerySchema,
  documentListSchema,
  documentReplaceSchema,
  documentSchema,
  documentWithTextSchema,
} from './schemas.ts';

const AUTH = { kind: 'workspace_key', capability: 'agents' } as const;
const TAGS = ['agents'];

function scopeOf(auth: Parameters<typeof requireAuth>[0]): TenantScope {
  const caller = requireAuth(auth);
  return { workspaceId: caller.workspaceId, environment: caller.environment };
}

const agentIdOf = (request: HttpRequest) => request.params.agentId ?? '';
const documentIdOf = (request: HttpRequest) => request.params.documentId ?? '';

/**
 * `/v1/agents/{agentId}/documents`: an Agent's knowledge base. Documents are shared by all
 * the Agent's end users or owned by one; an Agent whose publication has `documents_enabled`
 * searches them in its conversations.
 */
export function documentRoutes(documents: AgentDocuments): AnyRoute[] {
  return [
    defineRoute<DocumentCreateBody>({
      method: 'POST',
      path: '/v1/agents/:agentId/documents',
      operationId: 'createAgentDocument',
      errors: ['not_found', 'conflict'],
      summary:
        "Add a document to the Agent's knowledge base, shared by all its end users or owned by one (`end_user_id`). It is searchable as soon as this answers.",
      tags: TAGS,
      auth: AUTH,
      bodyLimitBytes: DOCUMENT_BODY_LIMIT_BYTES,
      body: documentCreateSchema,
      responses: { 201: { description: 'The new document.', schema: documentSchema } },
      handle: async ({ auth, request, body }) => {
        const document = await documents.create(
          scopeOf(auth),
          agentIdOf(request),
          body.end_user_id ?? null,
          { title: body.title, text: body.text, contentType: body.content_type ?? 'text/plain' },
        );
        return { status: 201, body: documentBody(document) };
      },
    }),
    defineRoute<undefined, z.infer<typeof documentListQuerySchema>>({
      method: 'GET',
      path: '/v1/agents/:agentId/documents',
      operationId: 'listAgentDocuments',
      errors: ['not_found'],
      summary:
        "One page of the Agent's documents, newest first, without their text; filter by `end_user_id` or `shared`.",
      tags: TAGS,
      auth: AUTH,
      query: documentListQuerySchema,
      responses: { 200: { description: 'One page of documents.', schema: documentListSchema } },
      handle: async ({ auth, request, query }) => {
        const page = await documents.list(scopeOf(auth), agentIdOf(request), {
          limit: query.limit,
          before: query.cursor,
          endUserId: query.end_user_id,
          shared: query.shared === undefined ? undefined : query.shared === 'true',
        });
        return {
          status: 200,
          body: { documents: page.documents.map(documentBody), next_cursor: page.nextCursor },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/agents/:agentId/documents/:documentId',
      operationId: 'getAgentDocument',
      errors: ['not_found'],
      summary: 'One document with its text.',
      tags: TAGS,
      auth: AUTH,
      responses: { 200: { description: 'The document.', schema: documentWithTextSchema } },
      handle: async ({ auth, request }) => {
        const document = await documents.get(
          scopeOf(auth),
          agentIdOf(request),
          documentIdOf(request),
        );
        return { status: 200, body: { ...documentBody(document), text: document.text } };
      },
    }),
    defineRoute<DocumentReplaceBody>({
      method: 'PUT',
      path: '/v1/agents/:agentId/documents/:documentId',
      operationId: 'replaceAgentDocument',
      errors: ['not_found'],
      summary:
        'Replace the title, text and format of a document and reindex it; the end user who owns it stays.',
      tags: TAGS,
      auth: AUTH,
      bodyLimitBytes: DOCUMENT_BODY_LIMIT_BYTES,
      body: documentReplaceSchema,
      responses: { 200: { description: 'The document after the change.', schema: documentSchema } },
      handle: async ({ auth, request, body }) => {
        const document = await documents.replace(
          scopeOf(auth),
          agentIdOf(request),
          documentIdOf(request),
          { title: body.title, text: body.text, contentType: body.content_type ?? 'text/plain' },
        );
        return { status: 200, body: documentBody(document) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/agents/:agentId/documents/:documentId',
      operationId: 'deleteAgentDocument',
      errors: ['not_found'],
      summary: 'Delete a document; conversations stop finding it at once.',
      tags: TAGS,
      auth: AUTH,
      responses: { 204: { description: 'Deleted.' } },
      handle: async ({ auth, request }) => {
        await documents.delete(scopeOf(auth), agentIdOf(request), documentIdOf(request));
        return { status: 204 };
      },
    }),
  ];
}
