import { Worker } from 'node:worker_threads';

const w = new Worker(new URL('./w.ts', import.meta.url));
w.on('message', (m) => {
  console.log('plain worker got', m);
  w.terminate();
});
w.on('error', (e) => console.log('plain worker error', e.message));
