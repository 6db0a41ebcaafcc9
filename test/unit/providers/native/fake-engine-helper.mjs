#!/usr/bin/env node
// A stand-in for awp-espeak-engine speaking its framed protocol (type u8, id u32 LE,
// length u32 LE, payload), with fixed timing: a ready frame at start; for each request one
// audio frame, then 30 ms later two more audio frames and the end frame in ONE write, so
// they reach the reader in one read. A cancel of a finished request is ignored, as the
// real engine does.
const frame = (type, id, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(payload.length, 5);
  return Buffer.concat([header, payload]);
};
const ready = Buffer.alloc(8);
ready.writeUInt32LE(22_050, 0);
ready.writeUInt32LE(2, 4); // protocol version
process.stdout.write(frame('R', 0, ready));
const audio = Buffer.alloc(960, 1);
let pending = Buffer.alloc(0);
process.stdin.on('data', (bytes) => {
  pending = Buffer.concat([pending, bytes]);
  while (pending.length >= 9) {
    const length = pending.readUInt32LE(5);
    if (pending.length < 9 + length) break;
    const type = String.fromCharCode(pending[0]);
    const id = pending.readUInt32LE(1);
    pending = pending.subarray(9 + length);
    if (type !== 'S') continue;
    process.stdout.write(frame('A', id, audio));
    setTimeout(() => {
      process.stdout.write(
        Buffer.concat([frame('A', id, audio), frame('A', id, audio), frame('E', id)]),
      );
    }, 30);
  }
});
process.stdin.on('end', () => process.exit(0));
