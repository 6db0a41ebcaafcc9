import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ROOT } from './server.ts';
import { waitFor } from './wait.ts';

/** A real S3-compatible server (SeaweedFS's `weed`) on loopback, private to one test file. */
export interface S3Server {
  /** `http://127.0.0.1:PORT`: the S3 endpoint. */
  endpoint: string;
  /** A fresh bucket made for this server. */
  bucket: string;
  client: S3Client;
  /** The variables that point the service at `s3://bucket/prefix` on this server. */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** The cached `weed` binary (scripts/install-seaweedfs.sh builds it once per machine). */
function weedBinary(): string {
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/install-seaweedfs.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1) ?? '';
}

/**
 * A free loopback port whose +10000 neighbour (weed's gRPC port) is free too. Both lie below
 * the kernel's ephemeral range (32768 up), from which every port-0 listener and outgoing
 * connection of the suite is given one: a port probed free there can be taken before weed
 * binds it.
 */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 2_768);
    if ((await isFree(port)) && (await isFree(port + 10_000))) return port;
  }
  throw new Error('no free port pair for weed');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Starts `weed server` with master, volume, filer and S3 gateway, and makes one bucket. A
 * port taken between the probe and weed's bind (another process of the suite) ends weed at
 * once: it is started again on other ports.
 */
export async function startS3Server(): Promise<S3Server> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWeed();
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('address already in use')) throw error;
    }
  }
}

async function startWeed(): Promise<S3Server> {
  const binary = weedBinary();
  const dir = await mkdtemp(path.join(tmpdir(), 'awp-s3-'));
  const [master, volume, filer, s3] = [
    await freePortPair(),
    await freePortPair(),
    await freePortPair(),
    await freePortPair(),
  ];
  const child: ChildProcess = spawn(
    binary,
    [
      'server',
      `-dir=${dir}`,
      '-ip=127.0.0.1',
      '-ip.bind=127.0.0.1',
      `-master.port=${master}`,
      '-master.volumeSizeLimitMB=64',
      `-volume.port=${volume}`,
      '-volume.max=0',
      '-filer',
      `-filer.port=${filer}`,
      '-s3',
      `-s3.port=${s3}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  const endpoint = `http://127.0.0.1:${s3}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'awp-test', secretAccessKey: 'awp-test-secret' },
  });
  const bucket = `awp-${randomBytes(4).toString('hex')}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`weed exited: ${output}`);
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
        return true;
      },
      { what: 'the S3 server to answer', timeoutMs: 60_000, intervalMs: 250 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint,
    bucket,
    client,
    env: (prefix = '') => ({
      STORAGE_URL: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'awp-test',
      S3_SECRET_ACCESS_KEY: 'awp-test-secret',
    }),
    stop: async () => {
      client.destroy();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            resolve(undefined);
          }, 5_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
