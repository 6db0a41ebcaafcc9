import type { z } from 'zod';
import {
  DOCUMENT_BODY_LIMIT_BYTES,
  MAX_DOCUMENT_CHARS,
  MAX_DOCUMENTS_PER_END_USER,
  MAX_SHARED_DOCUMENTS_PER_AGENT,
  MAX_TITLE_CHARS,
} from '../../agents/capabilities/documents/document-records.ts';
import type { AgentDocuments } from '../../agents/capabilities/documents/documents.ts';
import {
  type DocumentCreateBody,
  type DocumentReplaceBody,
  documentBody,
  documentCreateSchema,
  documentListQuerySchema,
  documentReplaceSchema,
} from '../../agents/capabilities/documents/schemas.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { ApiError } from '../../errors.ts';
import type { AnyRoute } from '../../http/route.ts';
import type { HttpRequest } from '../../http/types.ts';
import { AGENT_BUILDER_ROLES, mayReadEndUserData } from '../../workspaces/roles.ts';
import type { OperatorGuard } from '../guard.ts';
import type { OperatorPrincipal } from '../operator-sessions.ts';
import { EVERY_ROLE, operatorRoute } from '../route.ts';

/** What an Agent's knowledge base holds at most, as the Knowledge section shows it. */
const DOCUMENT_LIMITS = {
  title_chars: MAX_TITLE_CHARS,
  text_chars: MAX_DOCUMENT_CHARS,
  shared_documents: MAX_SHARED_DOCUMENTS_PER_AGENT,
  documents_per_end_user: MAX_DOCUMENTS_PER_END_USER,
};

function scopeOf(member: OperatorPrincipal, request: HttpRequest): TenantScope {
  return { workspaceId: member.workspaceId, environment: request.environment };
}

const agentIdOf = (request: HttpRequest) => request.params.agentId ?? '';

function endUserDocumentsRefused(member: OperatorPrincipal): ApiError {
  return new ApiError(
    'forbidden',
    `An end user's own documents are read by Owners, Admins and Builders; you are ${member.role}.`,
  );
}
const documentIdOf = (request: HttpRequest) => request.params.documentId ?? '';

/**
 * An Agent's documents (the Agent page's Knowledge section) in the member's workspace and
 * the listener's environment, through the same rules and bodies as
 * `/v1/agents/{id}/documents`: every member reads the shared ones; an end user's own
 * documents are end users' data, read by the roles `mayReadEndUserData` admits (as
 * transcripts are), and a Member listing them all sees the shared ones. Owner, Admin and
 * Builder add, replace and delete them, as they edit the Agent.
 */
export function documentRoutes(guard: OperatorGuard, documents: AgentDocuments): AnyRoute[] {
  return [
    operatorRoute<undefined, z.infer<typeof documentListQuerySchema>>(guard, {
      method: 'GET',
      path: '/agents/:agentId/documents',
      operationId: 'operatorListAgentDocuments',
      summary:
        "One page of the Agent's documents, newest first, without their text (`end_user_id`, `shared`, `cursor`, `limit` as on /v1), and the knowledge base's `limits`.",
      roles: EVERY_ROLE,
      query: documentListQuerySchema,
      errors: ['invalid_request', 'forbidden', 'not_found'],
      handle: async ({ member, request, query }) => {
        const shared = query.shared === undefined ? undefined : query.shared === 'true';
        const readsPrivate = mayReadEndUserData(member.role);
        if (!readsPrivate && (query.end_user_id !== undefined || shared === false)) {
          throw endUserDocumentsRefused(member);
        }
        const page = await documents.list(scopeOf(member, request), agentIdOf(request), {
          limit: query.limit,
          before: query.cursor,
          endUserId: query.end_user_id,
          shared: readsPrivate ? shared : true,
        });
        return {
          status: 200,
          body: {
            documents: page.documents.map(documentBody),
            next_cursor: page.nextCursor,
            limits: DOCUMENT_LIMITS,
          },
        };
      },
    }),
    operatorRoute(guard, {
      method: 'GET',
      path: '/agents/:agentId/documents/:documentId',
      operationId: 'operatorGetAgentDocument',
      summary: 'One document of the Agent with its text.',
      roles: EVERY_ROLE,
      errors: ['forbidden', 'not_found'],
      handle: async ({ member, request }) => {
        const document = await documents.get(
          scopeOf(member, request),
          agentIdOf(request),
          documentIdOf(request),
        );
        if (document.endUserId !== null && !mayReadEndUserData(member.role)) {
          throw endUserDocumentsRefused(member);
        }
        return {
          status: 200,
          body: { document: { ...documentBody(document), text: document.text } },
        };
      },
    }),
    operatorRoute<DocumentCreateBody>(guard, {
      method: 'POST',
      path: '/agents/:agentId/documents',
      operationId: 'operatorCreateAgentDocument',
      summary:
        'Adds a document with the body of POST /v1/agents/{id}/documents (shared, or owned by `end_user_id`).',
      roles: AGENT_BUILDER_ROLES,
      body: documentCreateSchema,
      bodyLimitBytes: DOCUMENT_BODY_LIMIT_BYTES,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, body }) => {
        const document = await documents.create(
          scopeOf(member, request),
          agentIdOf(request),
          body.end_user_id ?? null,
          { title: body.title, text: body.text, contentType: body.content_type ?? 'text/plain' },
        );
        return { status: 201, body: { document: documentBody(document) } };
      },
    }),
    operatorRoute<DocumentReplaceBody>(guard, {
      method: 'PUT',
      path: '/agents/:agentId/documents/:documentId',
      operationId: 'operatorReplaceAgentDocument',
      summary:
        'Replaces the title, text and format of a document and reindexes it (the body of PUT /v1/agents/{id}/documents/{documentId}).',
      roles: AGENT_BUILDER_ROLES,
      body: documentReplaceSchema,
      bodyLimitBytes: DOCUMENT_BODY_LIMIT_BYTES,
      errors: ['invalid_request', 'not_found'],
      handle: async ({ member, request, body }) => {
        const document = await documents.replace(
          scopeOf(member, request),
          agentIdOf(request),
          documentIdOf(request),
          { title: body.title, text: body.text, contentType: body.content_type ?? 'text/plain' },
        );
        return { status: 200, body: { document: documentBody(document) } };
      },
    }),
    operatorRoute(guard, {
      method: 'DELETE',
      path: '/agents/:agentId/documents/:documentId',
      operationId: 'operatorDeleteAgentDocument',
      summary: 'Deletes a document; conversations stop finding it at once.',
      roles: AGENT_BUILDER_ROLES,
      errors: ['not_found'],
      handle: async ({ member, request }) => {
        await documents.delete(scopeOf(member, request), agentIdOf(request), documentIdOf(request));
        return { status: 200, body: { deleted: true } };
      },
    }),
  ];
}
