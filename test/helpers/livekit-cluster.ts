// A LiveKit cluster for tests: livekit-server in multi-node mode, several nodes over one
// Redis, on loopback with distinct ports (docs/fleet.md describes the same configuration).
//
// The Redis is private to the cluster (a redis-server the helper starts on a free port), not
// the suite's shared one: LiveKit keeps its routing state under fixed key names (`nodes`,
// `room_node_map`) and talks between nodes over Redis pub/sub, which no database number
// separates, so two clusters on one Redis would route rooms to each other's nodes.

import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { LOOPBACK_RTC_YAML, launchLivekit, pickPorts, retryOnAddressInUse } from './livekit.ts';
import { waitFor } from './wait.ts';
import { freePort } from './worker.ts';

/** The cluster's key pair (LiveKit outside dev mode wants a secret of 32+ characters). */
export const CLUSTER_API_KEY = 'APIawpcluster';
export const CLUSTER_API_SECRET = 'awp-cluster-test-secret-0123456789abcdef';

export interface LivekitClusterNode {
  /** 1-based, in start order. */
  index: number;
  /** LiveKit's id of the node (`ND_...`), as it appears in the cluster's routing table. */
  nodeId: string;
  /** WebSocket URL of this node, for clients and workers. */
  url: string;
  /** HTTP URL of this node, for server APIs (RoomServiceClient, ...). */
  httpUrl: string;
  /** The cluster's key pair, the same on every node. */
  apiKey: string;
  apiSecret: string;
  port: number;
  rtcTcpPort: number;
  rtcUdpPort: number;
  logs(): string;
  stop(): Promise<void>;
}

export interface LivekitCluster {
  nodes: LivekitClusterNode[];
  apiKey: string;
  apiSecret: string;
  /** The cluster's Redis (`redis://127.0.0.1:PORT`). */
  redisUrl: string;
  /** The node LiveKit placed `room` on (its routing table in Redis), or undefined. */
  nodeHostingRoom(room: string): Promise<LivekitClusterNode | undefined>;
  /** Stops every node, then Redis. Idempotent. */
  stop(): Promise<void>;
}

export interface StartLivekitClusterOptions {
  /** How many livekit-server processes. Default 2. */
  nodes?: number;
}

/** One node's configuration file, as YAML. */
export function clusterNodeConfig(node: {
  redisPort: number;
  port: number;
  rtcTcpPort: number;
  rtcUdpPort: number;
}): string {
  return [
    `port: ${node.port}`,
    'bind_addresses: ["127.0.0.1"]',
    'redis:',
    `  address: 127.0.0.1:${node.redisPort}`,
    'keys:',
    `  ${CLUSTER_API_KEY}: ${CLUSTER_API_SECRET}`,
    'rtc:',
    `  tcp_port: ${node.rtcTcpPort}`,
    `  udp_port: ${node.rtcUdpPort}`,
    '  node_ip: 127.0.0.1',
    '  use_external_ip: false',
    ...LOOPBACK_RTC_YAML,
    // A new room goes to the node hosting the fewest (LiveKit's default picks at random), so
    // consecutive rooms alternate between the nodes and a test covers each of them. The
    // counts come from the stats each node writes to Redis every 2 s.
    'node_selector:',
    '  kind: any',
    '  sort_by: rooms',
    '',
  ].join('\n');
}

interface PrivateRedis {
  port: number;
  client: Redis;
  stop(): Promise<void>;
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function startRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-5_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-5_000);
  });
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  const stop = async () => {
    client.disconnect();
    child.kill('SIGTERM');
    await exitOf(child, 5_000);
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited:\n${output}`);
        if (client.status === 'wait' || client.status === 'end') await client.connect();
        return (await client.ping()) === 'PONG';
      },
      { what: 'the cluster Redis to answer', timeoutMs: 15_000, intervalMs: 50 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, client, stop };
}

/** Ports no node of the cluster uses yet. */
async function nodePorts(taken: Set<number>) {
  for (;;) {
    const ports = await pickPorts();
    const all = [ports.port, ports.rtcTcpPort, ports.rtcUdpPort];
    if (all.every((p) => !taken.has(p))) {
      for (const p of all) taken.add(p);
      return ports;
    }
  }
}

async function startNode(
  index: number,
  redisPort: number,
  taken: Set<number>,
): Promise<LivekitClusterNode> {
  return retryOnAddressInUse(async () => {
    const ports = await nodePorts(taken);
    const config = clusterNodeConfig({ redisPort, ...ports });
    const { logs, stop } = await launchLivekit(['--config-body', config], ports.port, 20_000);
    // Logged before the node serves HTTP: `starting LiveKit server {"portHttp": ..., "nodeID": "ND_..."`.
    const nodeId = /"nodeID": "(ND_[A-Za-z0-9]+)"/.exec(logs())?.[1];
    if (!nodeId) {
      await stop();
      throw new Error(`livekit-server node ${index} did not log its node id:\n${logs()}`);
    }
    return {
      index,
      nodeId,
      url: `ws://127.0.0.1:${ports.port}`,
      httpUrl: `http://127.0.0.1:${ports.port}`,
      apiKey: CLUSTER_API_KEY,
      apiSecret: CLUSTER_API_SECRET,
      ...ports,
      logs,
      stop,
    };
  });
}

/**
 * Starts a private Redis and `nodes` livekit-server processes sharing it, and resolves once
 * every node is registered in the cluster. Always call `stop()` (in afterAll).
 */
export async function startLivekitCluster(
  options: StartLivekitClusterOptions = {},
): Promise<LivekitCluster> {
  const redis = await startRedis();
  const nodes: LivekitClusterNode[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Nodes first: a node whose Redis went away first does not stop on SIGTERM.
      await Promise.all(nodes.map((node) => node.stop()));
      await redis.stop();
    })();
    return stopping;
  };
  try {
    const taken = new Set<number>();
    for (let index = 1; index <= (options.nodes ?? 2); index++) {
      nodes.push(await startNode(index, redis.port, taken));
    }
    await waitFor(
      async () => {
        const registered = await redis.client.hkeys('nodes');
        return nodes.every((node) => registered.includes(node.nodeId));
      },
      { what: 'every node to register in the cluster', timeoutMs: 15_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    apiKey: CLUSTER_API_KEY,
    apiSecret: CLUSTER_API_SECRET,
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    nodeHostingRoom: async (room) => {
      const nodeId = await redis.client.hget('room_node_map', room);
      return nodes.find((node) => node.nodeId === nodeId);
    },
    stop,
  };
}
