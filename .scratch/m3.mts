import { Worker } from 'node:worker_threads';

const w = new Worker(new URL('./boot.mjs', import.meta.url), {
  workerData: { entry: new URL('./w.ts', import.meta.url).href },
});
w.on('message', (m) => {
  console.log('boot worker got', m);
  w.terminate();
});
w.on('error', (e) => console.log('boot worker error', e.message));
