// Compile-time drift check of the server library's hand-written types against the types
// generated from docs/openapi.json (backend-sdk/src/generated/openapi.ts): `tsc -p
// tsconfig.json` (in `npm test` and `npm run check`) fails on this file when one of them no
// longer matches the API. Response types must equal the document's; request types must be
// accepted by it. The resource types that are aliases of the generated ones need no check.
import type { ApiErrorCode } from '../../../backend-sdk/src/errors.ts';
import type { components, operations } from '../../../backend-sdk/src/generated/openapi.ts';
import type {
  Agent,
  AgentCreate,
  AgentPublication,
  AgentUpdate,
  CharacterCard,
} from '../../../backend-sdk/src/types/agents.ts';
import type {
  Charge,
  Message,
  MessageUsage,
  SendMessageRequest,
  SendMessageResponse,
} from '../../../backend-sdk/src/types/messages.ts';
import type { RequestJson } from '../../../backend-sdk/src/types/openapi.ts';
import type { AgentSessionTokenRequest } from '../../../backend-sdk/src/types/sessions.ts';
import type { TranscriptionSessionListQuery } from '../../../backend-sdk/src/types/transcription.ts';
import type { SynthesizeRequest } from '../../../backend-sdk/src/types/tts.ts';

/** True when each type is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** True when every value of `A` is a valid `B`. */
type Accepted<A, B> = [A] extends [B] ? true : false;
type Holds<T extends true> = T;
/** The query parameters of an operation (by its `operationId`). */
type QueryOf<Operation extends keyof operations> = NonNullable<
  operations[Operation]['parameters']['query']
>;

export type ResponseTypesMatch = [
  Holds<Same<ApiErrorCode, components['schemas']['Error']['code']>>,
  Holds<Same<CharacterCard, Agent['character_card']>>,
  Holds<Same<AgentPublication, NonNullable<Agent['active_publication']>>>,
  Holds<Same<Message, SendMessageResponse['message']>>,
  Holds<Same<MessageUsage, SendMessageResponse['usage']>>,
  Holds<Same<Charge, SendMessageResponse['usage']['charge']>>,
];

export type RequestTypesAccepted = [
  Holds<Accepted<AgentCreate, RequestJson<'createAgent'>>>,
  Holds<Accepted<AgentUpdate, RequestJson<'updateAgent'>>>,
  Holds<Accepted<SendMessageRequest, RequestJson<'sendAgentMessage'>>>,
  Holds<Accepted<AgentSessionTokenRequest, RequestJson<'createAgentSessionToken'>>>,
  Holds<Accepted<SynthesizeRequest, RequestJson<'synthesize'>>>,
  Holds<Same<TranscriptionSessionListQuery, QueryOf<'listRealtimeTranscriptionSessions'>>>,
];
