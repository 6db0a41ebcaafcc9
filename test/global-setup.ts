// Runs once before the suite: tests that spawn the operator tool run the compiled
// JavaScript in dist/, so build it first (only when it is missing or stale).
import { ensureBuilt } from '../scripts/lib/build.mjs';

export default function setup(): void {
  ensureBuilt();
}
