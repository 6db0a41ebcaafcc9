import type { StreamingSessionStatus } from '../db/schema.ts';

export interface StreamingSessionRecord {
  id: string;
  partnerSessionId: string;
  status: StreamingSessionStatus;
  metadata: Record<string, unknown>;
  eventCount: number;
  createdAt: string;
  updatedAt: string;
  endedAt: string | null;
}

export interface StreamingEventInput {
  type: string;
  occurredAt: string;
  requestId: string | null;
  data: Record<string, unknown> | null;
}

export interface StreamingEventRecord extends StreamingEventInput {
  id: string;
  seq: number;
  receivedAt: string;
}
