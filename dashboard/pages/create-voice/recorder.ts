import { useCallback, useEffect, useRef, useState } from 'react';
import { RECORDING_LIMITS } from './models.ts';

/** A finished take: the audio, a URL to play it back, and how long it lasted. */
export interface Take {
  blob: Blob;
  url: string;
  /** The type it is uploaded as (the recorder's container without codec parameters). */
  contentType: string;
  fileName: string;
  durationMs: number;
}

export type RecorderState = 'idle' | 'starting' | 'recording';

/** Containers the service accepts, in order of preference (Safari records MP4 only). */
const CONTAINERS = [
  { mimeType: 'audio/webm;codecs=opus', contentType: 'audio/webm', extension: 'webm' },
  { mimeType: 'audio/webm', contentType: 'audio/webm', extension: 'webm' },
  { mimeType: 'audio/mp4', contentType: 'audio/mp4', extension: 'm4a' },
] as const;

function microphoneError(error: unknown): string {
  if (error instanceof DOMException && error.name === 'NotAllowedError') {
    return 'The browser was not allowed to use the microphone. Allow it for this site and try again.';
  }
  if (error instanceof DOMException && error.name === 'NotFoundError') {
    return 'No microphone was found.';
  }
  return `The microphone could not be opened: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Records from the microphone with MediaRecorder: `start`, `stop`, the elapsed time while
 * recording, and the last take. A take stops by itself at the longest accepted recording.
 */
export function useRecorder() {
  const [state, setState] = useState<RecorderState>('idle');
  const [elapsedMs, setElapsedMs] = useState(0);
  const [take, setTake] = useState<Take>();
  const [error, setError] = useState<string>();
  const recorder = useRef<MediaRecorder | undefined>(undefined);
  const stream = useRef<MediaStream | undefined>(undefined);
  const timer = useRef<number | undefined>(undefined);
  const takeUrl = useRef<string | undefined>(undefined);

  const release = useCallback(() => {
    if (timer.current !== undefined) window.clearInterval(timer.current);
    timer.current = undefined;
    for (const track of stream.current?.getTracks() ?? []) track.stop();
    stream.current = undefined;
  }, []);

  const discard = useCallback(() => {
    if (takeUrl.current) URL.revokeObjectURL(takeUrl.current);
    takeUrl.current = undefined;
    setTake(undefined);
  }, []);

  const stop = useCallback(() => {
    if (recorder.current?.state === 'recording') recorder.current.stop();
  }, []);

  const start = useCallback(async () => {
    setError(undefined);
    const container =
      typeof MediaRecorder === 'undefined'
        ? undefined
        : CONTAINERS.find((candidate) => MediaRecorder.isTypeSupported(candidate.mimeType));
    if (!container || !navigator.mediaDevices?.getUserMedia) {
      setError('This browser cannot record audio; use the Upload tab instead.');
      return;
    }
    setState('starting');
    let media: MediaStream;
    try {
      media = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (caught) {
      setError(microphoneError(caught));
      setState('idle');
      return;
    }
    discard();
    stream.current = media;
    const chunks: Blob[] = [];
    const next = new MediaRecorder(media, { mimeType: container.mimeType });
    const startedAt = performance.now();
    next.ondataavailable = (event) => {
      if (event.data.size > 0) chunks.push(event.data);
    };
    next.onstop = () => {
      const durationMs = Math.round(performance.now() - startedAt);
      release();
      const blob = new Blob(chunks, { type: container.contentType });
      const url = URL.createObjectURL(blob);
      takeUrl.current = url;
      setTake({
        blob,
        url,
        contentType: container.contentType,
        fileName: `recording.${container.extension}`,
        durationMs,
      });
      setElapsedMs(durationMs);
      setState('idle');
    };
    recorder.current = next;
    next.start();
    setElapsedMs(0);
    setState('recording');
    timer.current = window.setInterval(() => {
      const elapsed = performance.now() - startedAt;
      setElapsedMs(elapsed);
      if (elapsed >= RECORDING_LIMITS.maxDurationMs) stop();
    }, 200);
  }, [discard, release, stop]);

  useEffect(
    () => () => {
      if (recorder.current?.state === 'recording') {
        recorder.current.onstop = null;
        recorder.current.stop();
      }
      release();
      if (takeUrl.current) URL.revokeObjectURL(takeUrl.current);
    },
    [release],
  );

  return { state, elapsedMs, take, error, start, stop, discard };
}

/** `m:ss` of a duration. */
export function clock(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
