#!/usr/bin/env node
// Operator command-line tool; runs the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
