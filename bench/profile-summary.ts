/**
 * Summarizes V8 CPU profiles (`--cpu-prof` output) as text: for each `.cpuprofile` in a
 * folder, the busy time, the share per origin (our sources, each npm package, Node's
 * internals, GC) and the functions with the most self time.
 * `node --import tsx bench/profile-summary.ts DIR [--top N]`. See bench/PROFILING.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/profile-summary.ts DIR [--top N]');
const topFlag = process.argv.indexOf('--top');
const top = topFlag >= 0 ? Number(process.argv[topFlag + 1]) : 25;

/** Where a function comes from: a package, our code, Node itself, or a V8 pseudo-frame. */
function origin(url: string, name: string): string {
  // Builtins implemented in C++ (postMessage, fs and socket writes) have no script.
  if (url === '') return name.startsWith('(') ? name : '(builtin)';
  if (url.startsWith('wasm://')) return 'wasm';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  if (url.startsWith('node:')) return 'node';
  const ours = /\/(src|media|worker|dist)\/(.*?)\/[^/]+$/.exec(url);
  return ours ? `ours:${ours[1]}/${ours[2]}` : 'other';
}

for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    busy += us;
    const from = origin(frame.url, frame.functionName);
    byOrigin.set(from, (byOrigin.get(from) ?? 0) + us);
    const where = frame.url === '' ? '' : ` ${path.basename(frame.url)}:${frame.lineNumber + 1}`;
    const key = `${frame.functionName || '(anonymous)'}${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const lines = [`## ${file}: ${(busy / 1000).toFixed(0)} ms busy`, '', 'by origin:'];
  for (const [from, us] of [...byOrigin].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    lines.push(`  ${pct(us)}  ${from}`);
  }
  lines.push('', `top ${top} functions by self time:`);
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`  ${pct(us)}  ${name}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
