import { Worker } from 'node:worker_threads';

const w = new Worker(new URL('./w.ts', import.meta.url), {
  execArgv: ['--import', import.meta.resolve('tsx')],
});
w.on('message', (m) => {
  console.log('execArgv worker got', m);
  w.terminate();
});
w.on('error', (e) => console.log('execArgv worker error', e.message));
