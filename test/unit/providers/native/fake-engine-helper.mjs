#!/usr/bin/env node
// A stand-in for awp-espeak-engine speaking its framed protocol (type u8, id u32 LE,
// length u32 LE, payload), with fixed timing: a ready frame at start; for each request one
// audio frame of 960 bytes, then by the request's text:
// - `steady`: four more audio frames 40 ms apart, then the end frame 40 ms later;
// - `pause`: one more audio frame 40 ms later, then the end frame 2 s later;
// - anything else: 30 ms later two more audio frames and the end frame in ONE write, so
//   they reach the reader in one read.
// A cancel of a finished request is ignored, as the real engine does.
const frame = (type, id, payload = Buffer.alloc(0)) => {
  const header = Buffer.alloc(9);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(payload.length, 5);
  return Buffer.concat([header, payload]);
};
const ready = Buffer.alloc(8);
ready.writeUInt32LE(22_050, 0);
ready.writeUInt32LE(3, 4); // protocol version
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
    const payload = pending.subarray(9, 9 + length);
    pending = pending.subarray(9 + length);
    if (type !== 'S') continue;
    // The payload's head (9 bytes) and voice name come before the text.
    const text = payload.subarray(9 + payload[3]).toString('utf8');
    process.stdout.write(frame('A', id, audio));
    if (text === 'steady' || text === 'pause') {
      const frames = text === 'steady' ? [40, 40, 40, 40, 40] : [40, 2000];
      const writeNext = (index) => {
        if (index === frames.length) return;
        setTimeout(() => {
          process.stdout.write(
            index === frames.length - 1 ? frame('E', id) : frame('A', id, audio),
          );
          writeNext(index + 1);
        }, frames[index]);
      };
      writeNext(0);
      continue;
    }
    setTimeout(() => {
      process.stdout.write(
        Buffer.concat([frame('A', id, audio), frame('A', id, audio), frame('E', id)]),
      );
    }, 30);
  }
});
process.stdin.on('end', () => process.exit(0));
