// Starts a throwaway `livekit-server --dev` for tests, on ephemeral ports bound to 127.0.0.1.
//
// The binary is installed by scripts/install-livekit.sh. When it is missing, startLivekit
// throws (tests fail, they do not skip): the suite is meant to run with LiveKit present.

import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const LIVEKIT_DEV_API_KEY = 'devkey';
export const LIVEKIT_DEV_API_SECRET = 'secret';

export interface LivekitServer {
  /** WebSocket URL for clients, e.g. ws://127.0.0.1:40123 */
  url: string;
  /** HTTP URL of the same port, for server APIs (RoomServiceClient, ...) */
  httpUrl: string;
  apiKey: string;
  apiSecret: string;
  /** HTTP/WebSocket signal port */
  port: number;
  /** ICE/TCP port */
  rtcTcpPort: number;
  /** ICE/UDP port */
  rtcUdpPort: number;
  /** The last lines the server printed, for assertion messages */
  logs(): string;
  /** SIGTERM, wait for exit; a second SIGTERM then SIGKILL if it hangs. Idempotent. */
  stop(): Promise<void>;
}

export interface StartLivekitOptions {
  /** How long to wait for the server to answer on its HTTP port. Default 20 s. */
  startTimeoutMs?: number;
  /**
   * Restrict WebRTC UDP to the loopback interface and advertise 127.0.0.1 (default true).
   * Set false to let LiveKit use every interface, as it does by default.
   */
  loopbackOnly?: boolean;
  /** Extra command-line arguments for livekit-server. */
  extraArgs?: string[];
}

const BINARY = 'livekit-server';
const LOG_LINES_KEPT = 200;

/** Absolute path of livekit-server: $LIVEKIT_SERVER_BIN, else the first one on PATH. */
export function findLivekitServer(): string | undefined {
  const candidates: string[] = [];
  if (process.env.LIVEKIT_SERVER_BIN) candidates.push(process.env.LIVEKIT_SERVER_BIN);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir) candidates.push(join(dir, BINARY));
  }
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function freeTcpPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host, port: 0, exclusive: true }, () => {
      const addr = srv.address();
      if (addr === null || typeof addr === 'string') {
        srv.close();
        reject(new Error('could not read the address of a TCP probe socket'));
        return;
      }
      srv.close(() => resolve(addr.port));
    });
  });
}

function freeUdpPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = createSocket('udp4');
    sock.unref();
    sock.once('error', reject);
    sock.bind(0, host, () => {
      const { port } = sock.address();
      sock.close(() => resolve(port));
    });
  });
}

/** Three distinct ports: HTTP (127.0.0.1), ICE/TCP (LiveKit binds it on every address), ICE/UDP. */
export async function pickPorts(): Promise<{
  port: number;
  rtcTcpPort: number;
  rtcUdpPort: number;
}> {
  for (;;) {
    const port = await freeTcpPort('127.0.0.1');
    const rtcTcpPort = await freeTcpPort('0.0.0.0');
    const rtcUdpPort = await freeUdpPort('127.0.0.1');
    if (new Set([port, rtcTcpPort, rtcUdpPort]).size === 3) return { port, rtcTcpPort, rtcUdpPort };
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

// Kill any server still running when the test process exits (a crashed or interrupted run).
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) {
      if (!exited(child)) child.kill('SIGKILL');
    }
  });
}

/** The ports a server probed are taken by another process by now: pick others and retry. */
export class AddressInUseError extends Error {}

/** A livekit-server process that answers on its HTTP port. */
export interface LaunchedLivekit {
  /** The last lines the server printed. */
  logs(): string;
  /** SIGTERM, wait for exit; a second SIGTERM then SIGKILL if it hangs. Idempotent. */
  stop(): Promise<void>;
}

/** The binary, or an error naming how to install it. */
export function requireLivekitServer(): string {
  const bin = findLivekitServer();
  if (!bin) {
    throw new Error(
      `${BINARY} is not on PATH (PATH=${process.env.PATH ?? ''}). ` +
        'Install it with `bash scripts/install-livekit.sh` ' +
        '(or point LIVEKIT_SERVER_BIN at the binary).',
    );
  }
  return bin;
}

/**
 * Spawns livekit-server with `args` and waits until it answers on `port` (HTTP). Throws
 * {@link AddressInUseError} when it could not bind a port, so the caller can retry.
 */
export async function launchLivekit(
  args: readonly string[],
  port: number,
  startTimeoutMs: number,
): Promise<LaunchedLivekit> {
  const bin = requireLivekitServer();
  // LIVEKIT_* variables from the environment would override flags and the configured keys.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(LIVEKIT_|UDP_PORT$|NODE_IP$|REDIS_HOST$|REDIS_PASSWORD$)/.test(k)) env[k] = v;
  }

  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  running.add(child);
  installExitHook();

  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      if (lines.length > LOG_LINES_KEPT) lines.shift();
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const logs = () => lines.join('\n');

  let spawnError: Error | undefined;
  child.once('error', (err) => {
    spawnError = err;
  });
  child.once('exit', () => running.delete(child));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exited(child)) return;
      child.kill('SIGTERM');
      if (await waitForExit(child, 3_000)) return;
      // A SIGTERM that lands right after startup can be lost inside LiveKit (its Stop() returns
      // early until the server marks itself running); the second signal is its forced stop.
      child.kill('SIGTERM');
      if (await waitForExit(child, 5_000)) return;
      child.kill('SIGKILL');
      await waitForExit(child, 5_000);
    })();
    return stopping;
  };

  const httpUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (spawnError) {
      throw new Error(`could not start ${bin}: ${spawnError.message}`);
    }
    if (exited(child)) {
      const text = logs();
      if (/address already in use/i.test(text)) throw new AddressInUseError(text);
      throw new Error(
        `livekit-server exited during startup (code ${child.exitCode}, signal ${child.signalCode}):\n${text}`,
      );
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `livekit-server did not answer on ${httpUrl} within ${startTimeoutMs} ms:\n${logs()}`,
      );
    }
    try {
      const res = await fetch(httpUrl, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    await sleep(50);
  }
  // LiveKit serves HTTP about 100 ms before it marks itself running (and before it honours a
  // graceful SIGTERM): give it that time so a quick test does not race its startup.
  await sleep(150);
  return { logs, stop };
}

/** Retries `start` while the ports it probed turn out to be taken. */
export async function retryOnAddressInUse<T>(start: () => Promise<T>): Promise<T> {
  // Ports are probed then released, so another process can take one in between: retry.
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (err instanceof AddressInUseError && attempt < 5) continue;
      if (err instanceof AddressInUseError) {
        throw new Error(
          `livekit-server could not bind its ports after ${attempt} attempts:\n${err.message}`,
        );
      }
      throw err;
    }
  }
}

/** The WebRTC settings that keep media on the loopback interface, as LiveKit YAML lines. */
export const LOOPBACK_RTC_YAML = [
  '  enable_loopback_candidate: true',
  '  interfaces:',
  '    includes: [lo]',
  '  ips:',
  '    includes: [127.0.0.1/32]',
];

async function startDevServer(options: Required<StartLivekitOptions>): Promise<LivekitServer> {
  const { port, rtcTcpPort, rtcUdpPort } = await pickPorts();
  const args = [
    '--dev',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--rtc.tcp_port',
    String(rtcTcpPort),
    '--udp-port',
    String(rtcUdpPort),
  ];
  if (options.loopbackOnly) {
    args.push(
      '--node-ip',
      '127.0.0.1',
      '--config-body',
      ['rtc:', ...LOOPBACK_RTC_YAML, ''].join('\n'),
    );
  }
  args.push(...options.extraArgs);
  const { logs, stop } = await launchLivekit(args, port, options.startTimeoutMs);
  return {
    url: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    apiKey: LIVEKIT_DEV_API_KEY,
    apiSecret: LIVEKIT_DEV_API_SECRET,
    port,
    rtcTcpPort,
    rtcUdpPort,
    logs,
    stop,
  };
}

/**
 * Starts `livekit-server --dev` on free ports of 127.0.0.1 and waits until it answers.
 * Always call `stop()` (in afterAll / afterEach).
 */
export async function startLivekit(options: StartLivekitOptions = {}): Promise<LivekitServer> {
  requireLivekitServer();
  const resolved: Required<StartLivekitOptions> = {
    startTimeoutMs: options.startTimeoutMs ?? 20_000,
    loopbackOnly: options.loopbackOnly ?? true,
    extraArgs: options.extraArgs ?? [],
  };
  return retryOnAddressInUse(() => startDevServer(resolved));
}
