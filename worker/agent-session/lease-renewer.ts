// Worker thread renewing a job's lease on its session (job-lease.ts). It starts with the
// job process, before any session, so its connection is open when a session begins; the
// renewals then run on an event loop of their own, and a job whose loop is busy for a few
// seconds (models loading, a machine short of CPU) is not taken for a lost one and handed
// over while it still talks. A job process that dies takes this thread with it, and its
// lease lapses as before. The job's loop stamps `loopAlive`; once it has not run for the
// stall bound the renewals stop, so a stuck job is still handed over.

import { parentPort, workerData } from 'node:worker_threads';
import { openLeaseRenewal } from '../../src/worker-boundary/lease-renewal.ts';
import type {
  LeaseHold,
  LeaseRenewerData,
  LeaseRenewerReply,
  LeaseRenewerRequest,
} from './job-lease.ts';

const data = workerData as LeaseRenewerData;
const port = parentPort;
if (!port) throw new Error('lease-renewer must run in a worker thread');
const post = (reply: LeaseRenewerReply) => port.postMessage(reply);
const loopAlive = new Float64Array(data.loopAlive);

const opened = openLeaseRenewal(data.store);
opened.catch((error: unknown) => post({ type: 'failed', message: String(error) }));

let timer: NodeJS.Timeout | undefined;
let stopped = false;
let stallReported = false;
let inFlight: Promise<void> = Promise.resolve();

async function renewOnce(hold: LeaseHold): Promise<void> {
  if (stopped) return;
  const silentMs = Date.now() - (loopAlive[0] ?? 0);
  if (silentMs > hold.stallBoundMs) {
    if (!stallReported) post({ type: 'stalled', silentMs });
    stallReported = true;
    return;
  }
  stallReported = false;
  try {
    const held = await (await opened).renew(hold.sessionId, hold.epoch);
    if (!held && !stopped) {
      stopped = true;
      post({ type: 'superseded' });
    }
  } catch (error) {
    post({ type: 'failed', message: String(error) });
  }
}

function stop(): void {
  stopped = true;
  clearInterval(timer);
  // The last renewal lands before the job releases its lease, never after it.
  void inFlight
    .then(async () => (await opened).close())
    .catch(() => {})
    .finally(() => {
      post({ type: 'stopped' });
      port?.close();
    });
}

port.on('message', (request: LeaseRenewerRequest) => {
  if (request.type === 'stop') stop();
  else if (request.type === 'hold' && !timer && !stopped) {
    const hold = request.hold;
    timer = setInterval(() => {
      inFlight = renewOnce(hold);
    }, hold.intervalMs);
  }
});
