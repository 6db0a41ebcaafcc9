import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineLauncher } from '../../../../src/tts/providers/native/launcher/engine-launcher.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { launcherProcesses } from './processes.ts';

/** The launcher's abstract socket, found as any local process could find it. */
function launcherSocketName(): string {
  const names = readFileSync('/proc/net/unix', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/).at(-1) ?? '')
    .filter((path) => path.startsWith(`@awp-engine-launcher-${process.pid}-`));
  const name = names[0];
  if (name === undefined) throw new Error('the launcher socket is not listening');
  // Node binds the name without padding; /proc shows the unused bytes of the address as '@'.
  return name.slice(1).replace(/@+$/, '');
}

/** Connects as an impostor claiming engine `id`, sending `payload` after the id. */
function impostor(name: string, id: number, payload: Buffer): { socket: Socket } {
  const socket = connect(`\0${name}`);
  socket.on('error', () => {});
  const header = Buffer.alloc(4);
  header.writeUInt32BE(id);
  socket.end(Buffer.concat([header, payload]));
  return { socket };
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('engine launcher socket', () => {
  const launchers: EngineLauncher[] = [];

  afterEach(async () => {
    await Promise.all(launchers.splice(0).map((launcher) => launcher.close()));
    await waitFor(() => launcherProcesses().length === 0, { what: 'no launcher left' });
  });

  it('refuses an audio connection that does not carry the engine nonce', {
    timeout: 30_000,
  }, async () => {
    const launcher = new EngineLauncher();
    launchers.push(launcher);
    // Warm the launcher up so its socket exists, then start the engine under attack.
    const warm = launcher.start('espeak-ng', ['--stdout', '--stdin', '-v', 'en-us'], 'warm');
    warm.sendText('Warm.');
    await readAll(warm.stdout);
    await warm.exited;

    const name = launcherSocketName();
    const engine = launcher.start('espeak-ng', ['--stdout', '--stdin', '-v', 'en-us'], 'target');
    // Engine ids count up from 1; a local process need not guess much. It connects before
    // the launcher's own connection can (which waits for IPC and a process start).
    const marker = Buffer.from('INJECTED-AUDIO-'.repeat(64));
    const attacks = [2, 3].map((id) =>
      impostor(name, id, Buffer.concat([Buffer.alloc(16), marker])),
    );
    engine.sendText('Hello there.');
    const audio = await readAll(engine.stdout);
    await engine.exited;

    expect(audio.includes(marker.subarray(0, 15))).toBe(false);
    expect(audio.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(audio.byteLength).toBeGreaterThan(10_000);
    await waitFor(() => attacks.every((attack) => attack.socket.destroyed), {
      what: 'the launcher to drop every foreign connection',
    });
  });
});
