/**
 * Engine launcher: a small process that starts espeak-ng processes for the api process.
 *
 * Starting a process from a large Node process blocks its event loop for a time that grows
 * with its memory (fork copies the page tables: about 12 ms at 250 MB). This process stays
 * small, so starts are cheap and happen off the api process's event loop. Each engine's
 * stdout is piped into its own Unix socket connection to the api process; stdin text and
 * kills arrive over IPC. When the api process goes away, every engine is killed.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import {
  ENGINE_ID_BYTES,
  ENGINE_NONCE_BYTES,
  LAUNCHER_SOCKET_ENV,
  type LauncherCommand,
  type LauncherEvent,
  MAX_STDERR_CHARS,
} from './protocol.ts';

interface Running {
  child: ChildProcessWithoutNullStreams;
  connection: Socket;
}

const socketName = process.env[LAUNCHER_SOCKET_ENV];
if (!socketName || !process.send) {
  process.stderr.write('engine launcher: start it through EngineLauncher\n');
  process.exit(2);
}

const engines = new Map<number, Running>();
/** Longest wait for the rest of an exited engine's stderr. */
const STDERR_GRACE_MS = 500;

function send(event: LauncherEvent): void {
  // The api process can go between the check and the write: the send then fails (EPIPE)
  // and 'disconnect' below stops the engines and exits.
  if (process.connected) process.send?.(event, undefined, undefined, () => {});
}

function start(id: number, nonce: string, bin: string, args: string[]): void {
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false });
  const connection = connect(`\0${socketName}`);
  const header = Buffer.alloc(ENGINE_ID_BYTES + ENGINE_NONCE_BYTES);
  header.writeUInt32BE(id);
  Buffer.from(nonce, 'hex').copy(header, ENGINE_ID_BYTES);
  connection.write(header);
  child.stdout.pipe(connection);
  // The api side closing the connection means nobody wants this audio any more.
  connection.on('error', () => child.kill('SIGKILL'));
  connection.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.stdin.on('error', () => {});
  let stderr = '';
  child.stderr.on('data', (bytes: Buffer) => {
    if (stderr.length < MAX_STDERR_CHARS) {
      stderr += bytes.toString('utf8').slice(0, MAX_STDERR_CHARS - stderr.length);
    }
  });
  child.once('error', (error: NodeJS.ErrnoException) => {
    if (child.pid !== undefined) return;
    engines.delete(id);
    connection.destroy();
    send({
      op: 'exit',
      id,
      code: null,
      signal: null,
      stderr: '',
      spawnError: { code: error.code, message: error.message },
    });
  });
  if (child.pid === undefined) return;
  engines.set(id, { child, connection });
  send({ op: 'spawned', id, pid: child.pid });
  // 'exit', not 'close': stdout may sit unread in the api process (a cancelled request),
  // and 'close' would wait for it. stderr is read here, so it ends right after the exit.
  child.once('exit', (code, signal) => {
    engines.delete(id);
    const report = () => send({ op: 'exit', id, code, signal, stderr });
    if (child.stderr.readableEnded) report();
    else {
      const timer = setTimeout(report, STDERR_GRACE_MS);
      child.stderr.once('close', () => {
        clearTimeout(timer);
        report();
      });
    }
  });
}

process.on('message', (command: LauncherCommand) => {
  switch (command.op) {
    case 'spawn':
      start(command.id, command.nonce, command.bin, command.args);
      return;
    case 'text':
      engines.get(command.id)?.child.stdin.end(command.text, 'utf8');
      return;
    case 'kill':
      engines.get(command.id)?.child.kill('SIGKILL');
      return;
  }
});

process.on('disconnect', () => {
  for (const { child } of engines.values()) child.kill('SIGKILL');
  process.exit(0);
});
