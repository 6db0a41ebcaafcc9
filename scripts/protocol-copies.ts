// The shared protocol (protocol/, `@awp/protocol`) is the one place that names what crosses
// a process or package boundary. This check (part of `npm run check`) lists every literal
// in the other sources that copies one of its LiveKit topics, attributes, remote-call names
// or application topics, or the envelope limit, and fails when there is one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as protocol from '@awp/protocol';

export const ROOT = path.resolve(import.meta.dirname, '..');
const SCANNED = [
  'src',
  'dashboard',
  'worker',
  'media',
  'backend-sdk/src',
  'client-sdk/src',
  'react/src',
];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

export function* files(dir: string, pattern: RegExp): Generator<string> {
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
export function protocolNames(): string[] {
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

/** Every copy of a protocol name or the envelope limit outside protocol/, as `file:line: literal`. */
export function protocolCopies(): string[] {
  const names = protocolNames();
  return SCANNED.flatMap((dir) =>
    [...files(path.join(ROOT, dir), SOURCE)].flatMap((file) => copiesIn(file, names)),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const copies = protocolCopies();
  for (const copy of copies) process.stderr.write(`copied protocol constant: ${copy}\n`);
  if (copies.length > 0) process.exit(1);
  process.stdout.write('protocol: no copied constant outside protocol/\n');
}
