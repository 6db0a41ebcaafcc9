import { expect } from 'vitest';
import type { SampleInput } from '../../src/voices/cloning/types.ts';
import type { OperatorClient, OperatorResponse } from './operator.ts';

/** Shapes of the operator cloning API's answers, as a dashboard reads them. */

export interface RouteView {
  id: string;
  provider: string;
  state: string;
  failure_summary: string | null;
  blocked_by: string | null;
  enabled: boolean;
}
export interface VoiceView {
  id: string;
  default_route_id: string | null;
  offered: { output_formats: string[] } | null;
  routes: RouteView[];
}
export interface SampleView {
  id: string;
  language: string;
  transcript: string;
  content_type: string;
  size_bytes: number;
  permission_confirmed_by: string;
}
export interface AttemptView {
  route_id: string;
  provider: string;
  operation: string;
  state: string;
  sample_ids: string[];
  failure_summary: string | null;
  failure_detail: string | null;
  requested_by: string;
}
export interface DetailsView {
  voice: VoiceView;
  samples: SampleView[];
  history: AttemptView[];
}

/** A recording as a `recording` file part of an upload form. */
export function recording(sample: SampleInput) {
  return {
    field: 'recording',
    fileName: sample.fileName,
    contentType: sample.contentType,
    data: sample.audio,
  };
}

/** The metadata entry of a recording (language and exact transcript). */
export function meta(sample: SampleInput) {
  return { language: sample.language, transcript: sample.transcript };
}

/** The voice's route on `provider`; throws when it has none. */
export function routeOf(voice: VoiceView, provider: string): RouteView {
  const route = voice.routes.find((r) => r.provider === provider);
  if (!route) throw new Error(`no ${provider} route`);
  return route;
}

/** The voice's History through the API (asserting the 200). */
export async function history(client: OperatorClient, voiceId: string): Promise<AttemptView[]> {
  const response = await client.request('GET', `/voices/${voiceId}/history`);
  expect(response.status).toBe(200);
  return (response.body as { history: AttemptView[] }).history;
}

/** The body of a 201 answer to a voice creation (asserting the status). */
export function created(response: OperatorResponse): DetailsView {
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as DetailsView;
}
