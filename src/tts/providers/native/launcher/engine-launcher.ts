import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { siblingEntry } from '../../../../../media/runtime-entry.ts';
import type { Engine, EngineExit } from '../engine.ts';
import {
  ENGINE_ID_BYTES,
  ENGINE_NONCE_BYTES,
  LAUNCHER_SOCKET_ENV,
  type LauncherCommand,
  type LauncherEvent,
} from './protocol.ts';

const LAUNCHER_ENTRY = siblingEntry(import.meta.url, 'launcher-main');
/** How long an engine's audio connection may trail its exit report. */
const CONNECTION_GRACE_MS = 5_000;
/** A connection that has not sent its whole header by then is dropped. */
const HEADER_TIMEOUT_MS = 5_000;
const HEADER_BYTES = ENGINE_ID_BYTES + ENGINE_NONCE_BYTES;
/** How long close() lets the launcher exit by itself (it kills its engines) before SIGKILL. */
const LAUNCHER_EXIT_GRACE_MS = 5_000;
/** Engine ids wrap here (4 bytes on the wire). */
const MAX_ENGINE_ID = 0xffff_ffff;

/**
 * Starts espeak-ng processes through a small launcher child process (see
 * ./launcher-main.ts), so that process starts never block this process's event loop.
 * The launcher is forked on first use and again after it dies; engines it was running when
 * it died end as killed (`SIGKILL`), which callers already treat as a retryable failure.
 *
 * @example
 * const launcher = new EngineLauncher();
 * const engine = launcher.start('espeak-ng', ['--stdout', '--stdin'], 'en-us');
 * engine.sendText('Hello.');
 * for await (const bytes of engine.stdout) sink(bytes);
 * await engine.exited;
 * await launcher.close();
 */
export class EngineLauncher {
  /** Name in the Linux abstract socket namespace (no file to clean up); `\0` + name on the wire. */
  readonly #socketName = `awp-engine-launcher-${process.pid}-${randomBytes(6).toString('hex')}`;
  readonly #engines = new Map<number, LaunchedEngine>();
  /** Audio connections accepted and not closed yet (close() must end them itself). */
  readonly #connections = new Set<Socket>();
  #server: Server | undefined;
  #child: ChildProcess | undefined;
  #nextId = 1;
  #referenced = 0;
  #closed = false;

  /** Starts an engine; failures surface through its `exited` (as with a local process). */
  start(binaryPath: string, args: readonly string[], key: string): Engine {
    const id = this.#allocateId();
    const engine = new LaunchedEngine(key, id, this);
    this.#engines.set(id, engine);
    if (this.#closed) {
      engine.finish({ code: null, signal: 'SIGKILL' }, '', false);
      return engine;
    }
    try {
      this.#send({
        op: 'spawn',
        id,
        nonce: engine.nonce.toString('hex'),
        bin: binaryPath,
        args: [...args],
      });
    } catch (error) {
      // The launcher itself could not be started.
      engine.finish(
        { code: null, signal: null, spawnError: error as NodeJS.ErrnoException },
        '',
        false,
      );
    }
    return engine;
  }

  /**
   * Kills the launcher (and so every engine it runs), drops every audio connection (their
   * readers see the output end) and stops listening.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // The launcher kills its engines and exits when the channel closes; one that cannot
      // (stopped, stuck) must not hold the shutdown: its orphaned engines then end on their
      // own as their pipes break.
      const timer = setTimeout(() => child.kill('SIGKILL'), LAUNCHER_EXIT_GRACE_MS);
      if (child.connected) child.disconnect();
      else child.kill('SIGKILL');
      await exited;
      clearTimeout(timer);
    }
    // server.close() calls back only once every accepted connection has closed, and a paused
    // connection never notices its peer went away: nothing reads it, so no EOF is seen.
    for (const socket of this.#connections) socket.destroy();
    await new Promise<void>((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
    this.#server = undefined;
  }

  /** @internal */
  send(command: LauncherCommand): void {
    this.#send(command);
  }

  /** @internal An engine starts or stops keeping the event loop alive. */
  reference(delta: 1 | -1): void {
    this.#referenced += delta;
    this.#applyReference();
  }

  /** @internal */
  forget(id: number): void {
    this.#engines.delete(id);
  }

  #allocateId(): number {
    for (;;) {
      const id = this.#nextId;
      this.#nextId = id >= MAX_ENGINE_ID ? 1 : id + 1;
      if (!this.#engines.has(id)) return id;
    }
  }

  #send(command: LauncherCommand): void {
    const child = this.#ensureLauncher();
    child.send(command, (error) => {
      // The launcher died with the command in flight: its exit handler fails the engine.
      if (error && command.op === 'spawn') this.#failEngine(command.id);
    });
  }

  #ensureLauncher(): ChildProcess {
    if (this.#child?.connected) return this.#child;
    this.#ensureServer();
    const child = fork(LAUNCHER_ENTRY.file, [], {
      env: { ...process.env, [LAUNCHER_SOCKET_ENV]: this.#socketName },
      execArgv: [...LAUNCHER_ENTRY.execArgv],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.#child = child;
    child.on('message', (event: LauncherEvent) => this.#onEvent(event));
    child.once('exit', () => {
      if (this.#child === child) this.#child = undefined;
      // Every engine still running there is gone with it.
      for (const id of [...this.#engines.keys()]) this.#failEngine(id);
    });
    child.on('error', () => {});
    this.#applyReference();
    return child;
  }

  #ensureServer(): void {
    if (this.#server) return;
    const server = createServer((socket) => this.#onConnection(socket));
    server.on('error', () => {});
    server.listen(`\0${this.#socketName}`);
    server.unref();
    this.#server = server;
  }

  /**
   * An audio connection: accepted only with the id and nonce of an engine that has no
   * connection yet (see protocol.ts for why); anything else is closed unread.
   */
  #onConnection(socket: Socket): void {
    this.#connections.add(socket);
    let header = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), HEADER_TIMEOUT_MS);
    timer.unref();
    const onData = (bytes: Buffer) => {
      header = Buffer.concat([header, bytes]);
      if (header.byteLength < HEADER_BYTES) return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      const engine = this.#engines.get(header.readUInt32BE(0));
      const nonce = header.subarray(ENGINE_ID_BYTES, HEADER_BYTES);
      if (!engine || engine.attached || !timingSafeEqual(nonce, engine.nonce)) {
        socket.destroy();
        return;
      }
      engine.attach(socket, header.subarray(HEADER_BYTES));
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      this.#connections.delete(socket);
    });
  }

  #onEvent(event: LauncherEvent): void {
    const engine = this.#engines.get(event.id);
    if (!engine) return;
    if (event.op === 'spawned') {
      engine.started(event.pid);
      return;
    }
    const exit: EngineExit = event.spawnError
      ? {
          code: null,
          signal: null,
          spawnError: Object.assign(new Error(event.spawnError.message), {
            code: event.spawnError.code,
          }) as NodeJS.ErrnoException,
        }
      : { code: event.code, signal: event.signal };
    engine.finish(exit, event.stderr, true);
  }

  #failEngine(id: number): void {
    this.#engines.get(id)?.finish({ code: null, signal: 'SIGKILL' }, '', false);
  }

  #applyReference(): void {
    const child = this.#child;
    if (!child) return;
    const channel = child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
    if (this.#referenced > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }
}

/** An engine run by the launcher; see {@link Engine}. */
class LaunchedEngine implements Engine {
  readonly key: string;
  readonly stdout: Readable;
  readonly exited: Promise<EngineExit>;
  /** What the launcher's audio connection for this engine must present. */
  readonly nonce = randomBytes(ENGINE_NONCE_BYTES);
  readonly #id: number;
  readonly #launcher: EngineLauncher;
  readonly #output = new PassThrough();
  #resolveExit: (exit: EngineExit) => void = () => {};
  #exit: EngineExit | undefined;
  #pid: number | undefined;
  #socket: Socket | undefined;
  #stderr = '';
  #textSent = false;
  #killed = false;
  #referenced = true;

  constructor(key: string, id: number, launcher: EngineLauncher) {
    this.key = key;
    this.#id = id;
    this.#launcher = launcher;
    this.stdout = this.#output;
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
    launcher.reference(1);
  }

  get pid(): number | undefined {
    return this.#pid;
  }

  get alive(): boolean {
    return this.#exit === undefined && !this.#killed;
  }

  get used(): boolean {
    return this.#textSent;
  }

  get stderr(): string {
    return this.#stderr.trim();
  }

  /** True once the audio connection arrived; a second one is refused. */
  get attached(): boolean {
    return this.#socket !== undefined;
  }

  sendText(text: string): void {
    this.#textSent = true;
    if (this.#exit === undefined) this.#launcher.send({ op: 'text', id: this.#id, text });
  }

  kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    if (this.#exit === undefined) this.#launcher.send({ op: 'kill', id: this.#id });
    // Nobody reads the rest: drop the connection (the launcher kills on its close too),
    // and end the output as a killed local process's stdout would. Also after the process
    // exited: audio it wrote may still sit in the connection, which nothing would read.
    this.#socket?.destroy();
    this.#endOutput();
  }

  setReferenced(referenced: boolean): void {
    if (referenced === this.#referenced || this.#exit !== undefined) return;
    this.#referenced = referenced;
    this.#launcher.reference(referenced ? 1 : -1);
    if (referenced) this.#socket?.ref();
    else this.#socket?.unref();
  }

  /** The launcher confirmed the process runs. */
  started(pid: number): void {
    this.#pid = pid;
  }

  /** The process's audio connection arrived; `head` is audio read with the header. */
  attach(socket: Socket, head: Buffer): void {
    this.#socket = socket;
    if (this.#exit !== undefined) this.#launcher.forget(this.#id);
    if (!this.#referenced) socket.unref();
    if (this.#killed) {
      // Killed before its connection arrived: nobody reads it.
      socket.destroy();
      return;
    }
    if (head.byteLength > 0) this.#output.write(head);
    socket.on('close', () => this.#endOutput());
    // A reader that gives up destroys the output (breaking out of `for await` does), which
    // unpipes and pauses the connection: unread, it would never see EOF and never close,
    // holding a descriptor and its buffers, and the socket server's close() forever.
    this.#output.once('close', () => socket.destroy());
    socket.pipe(this.#output);
    socket.resume();
  }

  /**
   * The process ended, could not start, or the launcher died (`expectConnection` false).
   * Audio may still be on its way through the connection, which ends the output itself.
   */
  finish(exit: EngineExit, stderr: string, expectConnection: boolean): void {
    if (this.#exit !== undefined) return;
    this.#exit = exit;
    this.#stderr = stderr;
    if (this.#referenced) this.#launcher.reference(-1);
    if (this.#socket !== undefined) {
      this.#launcher.forget(this.#id);
    } else if (!expectConnection || exit.spawnError !== undefined) {
      this.#launcher.forget(this.#id);
      this.#endOutput();
    } else {
      // The launcher opens the connection before it starts the process; it can arrive
      // after the exit report. A connection that never comes must not hang the reader.
      setTimeout(() => {
        if (this.#socket === undefined) {
          this.#launcher.forget(this.#id);
          this.#endOutput();
        }
      }, CONNECTION_GRACE_MS).unref();
    }
    this.#resolveExit(exit);
  }

  #endOutput(): void {
    if (!this.#output.writableEnded) this.#output.end();
  }
}
