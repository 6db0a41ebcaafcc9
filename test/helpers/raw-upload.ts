import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Resident memory of a process, in bytes (VmRSS of /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/** Samples a process's RSS until stopped; `peak` is the largest value seen. */
export class RssSampler {
  peak: number;
  readonly #timer: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    onSample: (rss: number) => void = () => {},
    intervalMs = 10,
  ) {
    this.peak = rssBytes(pid);
    this.#timer = setInterval(() => {
      const rss = rssBytes(pid);
      this.peak = Math.max(this.peak, rss);
      onSample(rss);
    }, intervalMs);
  }

  stop(): number {
    clearInterval(this.#timer);
    return this.peak;
  }
}

export interface RawUpload {
  /** Status of the answer; null when the connection ended without one. */
  status: Promise<number | null>;
  /** The answer's body; null when the connection ended without a whole one. */
  body: Promise<string | null>;
  destroy(): void;
}

const CHUNK = Buffer.alloc(1024 * 1024, 0x61);

/**
 * A client streaming a body of `lengthBytes` over a raw TCP connection, as fast as the
 * server takes it, and stopping as soon as an answer arrives: what an attacker's upload
 * looks like, without a client library that waits to finish sending before it reads.
 */
export function rawUpload(
  url: string,
  request: { method: string; path: string; headers: Record<string, string>; lengthBytes: number },
): RawUpload {
  const { hostname, port, host } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  let sent = 0;
  let answered = false;
  let received = '';
  const head = [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: ${host}`,
    `content-length: ${request.lengthBytes}`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  const pump = () => {
    while (!answered && sent < request.lengthBytes && !socket.destroyed) {
      const piece = CHUNK.subarray(0, Math.min(CHUNK.byteLength, request.lengthBytes - sent));
      sent += piece.byteLength;
      if (!socket.write(piece)) return;
    }
  };
  socket.on('connect', () => {
    socket.write(head);
    pump();
  });
  socket.on('drain', pump);
  let resolveBody!: (body: string | null) => void;
  const body = new Promise<string | null>((resolve) => {
    resolveBody = resolve;
  });
  const status = new Promise<number | null>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (match && !answered) {
        // The server answered: stop sending, as a client reading its answer would.
        answered = true;
        resolve(Number(match[1]));
      }
      const headEnd = received.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(received);
      if (headEnd >= 0 && length && received.length >= headEnd + 4 + Number(length[1])) {
        resolveBody(received.slice(headEnd + 4, headEnd + 4 + Number(length[1])));
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      resolve(null);
      resolveBody(null);
    });
  });
  return { status, body, destroy: () => socket.destroy() };
}
