#!/usr/bin/env node
// An engine built from older sources: its ready frame carries the sample rate alone
// (protocol 1), and it answers nothing else.
const header = Buffer.alloc(9);
header.write('R', 0, 'latin1');
header.writeUInt32LE(0, 1);
header.writeUInt32LE(4, 5);
const rate = Buffer.alloc(4);
rate.writeUInt32LE(22_050);
process.stdout.write(Buffer.concat([header, rate]));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
