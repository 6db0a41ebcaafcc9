// Worker threads do not inherit the TypeScript loader of the main thread: register it in
// this thread, then load the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
