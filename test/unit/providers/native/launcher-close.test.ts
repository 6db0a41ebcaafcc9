import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../../../src/tts/providers/native/engine.ts';
import { EngineLauncher } from '../../../../src/tts/providers/native/launcher/engine-launcher.ts';
import { waitFor } from '../../../helpers/wait.ts';
import { launchedEngineProcesses, launcherProcesses, longText } from './processes.ts';

const ARGS = ['--stdout', '--stdin', '-b', '1', '-v', 'en-us'];
const SENTENCE = 'The quick brown fox jumps over the lazy dog, and then it runs away again.';
/** Far longer than a close() that works takes on a loaded machine; the hang never ends. */
const CLOSE_DEADLINE_MS = 20_000;

/**
 * Launcher socket entries of this process in /proc/net/unix, by socket name: the listening
 * socket plus one per audio connection accepted (accepted sockets carry the bound name).
 */
function launcherSockets(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n')) {
    const name = line.trim().split(/\s+/).at(-1) ?? '';
    if (!name.startsWith(`@awp-engine-launcher-${process.pid}-`)) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** Resolves with 'closed', or 'hung' when close() is still pending after the deadline. */
async function closeWithin(launcher: EngineLauncher): Promise<'closed' | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), CLOSE_DEADLINE_MS);
  });
  try {
    return await Promise.race([launcher.close().then(() => 'closed' as const), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the engine's first audio bytes arrived (so its connection is attached). */
async function firstBytes(engine: Engine): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    engine.stdout.once('readable', () => resolve());
    engine.stdout.once('error', reject);
  });
}

describe('EngineLauncher.close() with output nobody read', () => {
  const launchers: EngineLauncher[] = [];
  const make = () => {
    const launcher = new EngineLauncher();
    launchers.push(launcher);
    return launcher;
  };

  afterEach(async () => {
    // Whatever a test left behind must not outlive it (close() is what is under test, so a
    // hung one is not awaited again here).
    for (const pid of launcherProcesses()) process.kill(pid, 'SIGKILL');
    launchers.splice(0);
    await waitFor(
      () => launcherProcesses().length === 0 && launchedEngineProcesses().length === 0,
      { what: 'no launcher and no launched engine left' },
    );
  });

  it('resolves and leaves no launcher or espeak-ng behind', { timeout: 60_000 }, async () => {
    const launcher = make();
    // Finished engines whose audio sits unread in the connection, and engines still
    // speaking but blocked because nobody reads them.
    const finished = [0, 1].map(() => launcher.start('espeak-ng', ARGS, 'short'));
    for (const engine of finished) engine.sendText(SENTENCE);
    const blocked = [0, 1].map(() => launcher.start('espeak-ng', ARGS, 'long'));
    for (const engine of blocked) engine.sendText(longText(60));
    await Promise.all([...finished, ...blocked].map(firstBytes));
    expect(await Promise.all(finished.map((engine) => engine.exited))).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    expect(blocked.every((engine) => engine.alive)).toBe(true);
    expect(launchedEngineProcesses()).toHaveLength(2);

    expect(await closeWithin(launcher)).toBe('closed');
    expect(launcherProcesses()).toEqual([]);
    expect(launchedEngineProcesses()).toEqual([]);
    expect(await Promise.all(blocked.map((engine) => engine.exited))).toEqual([
      { code: null, signal: 'SIGKILL' },
      { code: null, signal: 'SIGKILL' },
    ]);
    // Readers still holding an output see it end rather than wait forever.
    for (const engine of [...finished, ...blocked]) {
      await waitFor(() => engine.stdout.readableEnded || engine.stdout.destroyed || drain(engine), {
        what: "the engine's output to end",
      });
    }
  });

  it('drops the connection of an engine its reader gave up on after it exited', {
    timeout: 60_000,
  }, async () => {
    const earlier = new Set(launcherSockets().keys());
    const launcher = make();
    const engine = launcher.start('espeak-ng', ARGS, 'short');
    engine.sendText(SENTENCE);
    const reader = engine.stdout[Symbol.asyncIterator]();
    expect((await reader.next()).done).toBe(false);
    expect(await engine.exited).toEqual({ code: 0, signal: null });
    const [name] = [...launcherSockets().keys()].filter((n) => !earlier.has(n));
    expect(name).toBeDefined();
    const entries = () => launcherSockets().get(name as string) ?? 0;
    expect(entries()).toBe(2);
    // What a cancelled request does: stop reading (which destroys the output), then kill.
    await reader.return?.(undefined);
    engine.kill();
    await waitFor(() => entries() === 1, {
      what: "the launcher to drop the engine's connection",
    });
    expect(await closeWithin(launcher)).toBe('closed');
  });

  it('drops the connection of an engine killed before its connection arrived', {
    timeout: 60_000,
  }, async () => {
    const earlier = new Set(launcherSockets().keys());
    const launcher = make();
    // Killed at once, as a request cancelled right after it got its engine: the launcher
    // opens the audio connection anyway (it had already started the process).
    const engines = Array.from({ length: 6 }, () => launcher.start('espeak-ng', ARGS, 'short'));
    for (const engine of engines) {
      engine.sendText(SENTENCE);
      engine.kill();
    }
    for (const engine of engines) await engine.exited;
    const name = () => [...launcherSockets().keys()].find((n) => !earlier.has(n));
    await waitFor(() => name() !== undefined, { what: "the new launcher's socket" });
    // Only the listening socket stays: every connection that arrived was dropped.
    await waitFor(() => launcherSockets().get(name() as string) === 1, {
      what: "only the launcher's listening socket to stay",
    });
    expect(await closeWithin(launcher)).toBe('closed');
    expect(launchedEngineProcesses()).toEqual([]);
  });

  it('kills a launcher that does not exit by itself, and its engines end too', {
    timeout: 60_000,
  }, async () => {
    const launcher = make();
    const engine = launcher.start('espeak-ng', ARGS, 'long');
    engine.sendText(longText(60));
    await firstBytes(engine);
    const [launcherPid] = launcherProcesses();
    const engines = launchedEngineProcesses();
    expect(engines).toHaveLength(1);
    // A stopped launcher cannot act on the closed channel; only SIGKILL ends it.
    process.kill(launcherPid as number, 'SIGSTOP');
    expect(await closeWithin(launcher)).toBe('closed');
    expect(launcherProcesses()).toEqual([]);
    expect(await engine.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The orphaned engine's pipe broke with its launcher: it does not run on.
    await waitFor(() => engines.every((pid) => !running(pid)), {
      what: 'every engine process to exit',
    });
  });
});

/** Whether `pid` is a live process (a zombie waiting to be reaped is not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Reads whatever is buffered; true once the output has ended. */
function drain(engine: Engine): boolean {
  while (engine.stdout.read() !== null) {
    // discard
  }
  return engine.stdout.readableEnded;
}
