import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Replaces what stands between `<!-- name:start -->` and `<!-- name:end -->` in
 * bench/README.md with `section` (a full run's results); leaves the page alone when the
 * markers are missing.
 */
export function replaceReadmeSection(name: string, section: string): void {
  const readmePath = path.join(import.meta.dirname, '..', 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return;
  writeFileSync(
    readmePath,
    `${readme.slice(0, from + start.length)}\n${section}\n${readme.slice(to)}`,
  );
}
