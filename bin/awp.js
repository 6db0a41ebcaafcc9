#!/usr/bin/env node
// Operator command-line tool; runs the compiled JavaScript in dist/ (built on demand).
import { ensureBuilt } from '../scripts/lib/build.mjs';

try {
  ensureBuilt();
} catch (error) {
  process.stderr.write(`awp: ${error.message}\n`);
  process.exit(1);
}
await import('../dist/src/cli/main.js');
