#!/usr/bin/env node
// `npm run build`: compile to dist/ (see scripts/lib/build.mjs).
import { build } from './lib/build.mjs';

try {
  const ms = build();
  process.stdout.write(`[build] dist/ ready in ${(ms / 1000).toFixed(1)} s\n`);
} catch (error) {
  process.stderr.write(`[build] ${error.message}\n`);
  process.exit(1);
}
