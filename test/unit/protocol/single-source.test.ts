// The shared protocol (protocol/, `@awp/protocol`) is the one place that names what crosses
// a process or package boundary: no other source file spells one of its LiveKit topics,
// attributes, remote-call names or application topics, nor the envelope limit, as a literal
// of its own. The compiled service and both SDK packages carry the protocol inside their
// dist/ (the SDKs are installed as one package), so none of them imports it by name.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as protocol from '@awp/protocol';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCANNED = ['src', 'worker', 'media', 'backend-sdk/src', 'client-sdk/src', 'react/src'];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

function* files(dir: string, pattern: RegExp): Generator<string> {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') yield* files(full, pattern);
    else if (entry.isFile() && pattern.test(entry.name)) yield full;
  }
}

/**
 * The protocol's names that no other code uses: its string constants with a dot in them
 * (`awp.ptt.start`, `lk.transcription`, `application.request`, ...). Codes such as
 * `invalid_request` are left out: code uses them as values of the registry's types.
 */
function protocolNames(): string[] {
  const names = new Set<string>();
  for (const value of Object.values(protocol)) {
    if (typeof value === 'string' && value.includes('.')) names.add(value);
    if (typeof value === 'object' && value !== null) {
      for (const inner of Object.values(value)) {
        if (typeof inner === 'string' && inner.includes('.')) names.add(inner);
      }
    }
  }
  return [...names];
}

/**
 * `file:line: literal` for each literal equal to a protocol name, or the envelope limit, in
 * the code of `file` (comment lines and trailing comments are skipped).
 */
function copiesIn(file: string, names: string[]): string[] {
  const found: string[] = [];
  const envelope = String(protocol.APPLICATION_LIMITS.envelopeChars);
  // Audio bitrates in media/ may share the number; the limit belongs to the application wire.
  const numbers = file.startsWith(path.join(ROOT, 'media'))
    ? []
    : [envelope, envelope.replace(/(\d)(?=(\d{3})+$)/g, '$1_')];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, index) => {
    // Comments may name what they describe; only code counts.
    if (/^\s*(\*|\/\*|\/\/)/.test(text)) return;
    const line = text.replace(/\s\/\/\s.*$/, '');
    const where = `${path.relative(ROOT, file)}:${index + 1}`;
    for (const name of names) {
      for (const quote of ["'", '"', '`']) {
        if (line.includes(`${quote}${name}${quote}`)) found.push(`${where}: ${name}`);
      }
    }
    for (const number of numbers) {
      if (new RegExp(`(?<![\\w.])${number}(?![\\w.])`).test(line)) {
        found.push(`${where}: ${number}`);
      }
    }
  });
  return found;
}

describe('the shared protocol is the single source', () => {
  it('names every topic, attribute and remote call that other code uses', () => {
    const names = protocolNames();
    expect(names).toEqual(
      expect.arrayContaining([
        'lk.transcription',
        'awp.transcript',
        'awp.ptt.start',
        'awp.input_mode',
        'application.request',
        'application.command_result',
        'animated-waffle.application.version',
      ]),
    );
  });

  it('has no copy of a protocol name or the envelope limit outside protocol/', () => {
    const names = protocolNames();
    const copies = SCANNED.flatMap((dir) =>
      [...files(path.join(ROOT, dir), SOURCE)].flatMap((file) => copiesIn(file, names)),
    );
    expect(copies).toEqual([]);
  });

  it('ships inside the compiled service and both SDK packages, never imported by name', () => {
    const built = ['dist/src', 'dist/worker', 'backend-sdk/dist', 'client-sdk/dist'];
    const importing = built.flatMap((dir) =>
      [...files(path.join(ROOT, dir), /\.(js|d\.ts)$/)]
        .filter((file) => /(['"])@awp\/protocol\1/.test(readFileSync(file, 'utf8')))
        .map((file) => path.relative(ROOT, file)),
    );
    expect(importing).toEqual([]);
    for (const pkg of ['backend-sdk', 'client-sdk']) {
      expect(existsSync(path.join(ROOT, pkg, 'dist/protocol/index.js')), pkg).toBe(true);
      expect(existsSync(path.join(ROOT, pkg, 'dist/protocol/index.d.ts')), pkg).toBe(true);
      const manifest = readFileSync(path.join(ROOT, pkg, 'package.json'), 'utf8');
      expect(manifest, pkg).not.toContain('@awp/protocol');
    }
  });
});
