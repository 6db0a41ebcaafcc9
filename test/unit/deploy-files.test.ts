import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { configSchema } from '../../src/app/config.ts';
import { sttConfigSchema } from '../../src/stt/config.ts';
import { workerConfigSchema } from '../../worker/config.ts';

/**
 * docker-compose.yml and deploy/kubernetes/awp.yaml against what the processes read: a
 * variable the schemas do not know would be silently ignored by the process it was meant
 * for, and a probe on the wrong port restarts healthy pods.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const shapes = [configSchema, workerConfigSchema, sttConfigSchema].map(
  (schema: z.ZodObject) => schema.shape as Record<string, z.ZodType>,
);
const known = new Set(shapes.flatMap((shape) => Object.keys(shape)));
const scripts = Object.keys(
  (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
);

function schemaDefault(name: string): unknown {
  const field = shapes.find((shape) => shape[name])?.[name];
  return field?.safeParse(undefined).data;
}

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const appServices = Object.entries(compose.services).filter(([, s]) => s.image === 'awp:local');

interface Container {
  name: string;
  command?: string[];
  env?: { name: string; value?: string }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}
interface Probe {
  httpGet?: { path: string; port: number };
  exec?: { command: string[] };
}
interface KubeObject {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: { template?: { spec: { containers: Container[] } } };
}

const kube = parseAllDocuments(read('deploy/kubernetes/awp.yaml')).map(
  (doc) => doc.toJS() as KubeObject,
);
const appContainers = kube
  .flatMap((o) => o.spec?.template?.spec.containers ?? [])
  .filter((c) => c.name !== 'livekit');

/** The port a probe asks, whether by HTTP or by a `fetch` inside the container. */
function probePort(probe: Probe | string[] | undefined): number | undefined {
  if (!probe) return undefined;
  if (Array.isArray(probe)) return Number(/127\.0\.0\.1:(\d+)/.exec(probe.join(' '))?.[1]);
  if (probe.httpGet) return probe.httpGet.port;
  return Number(/127\.0\.0\.1:(\d+)/.exec(probe.exec?.command.join(' ') ?? '')?.[1]);
}

const PROBE_PORTS: Record<string, number> = {
  serve: schemaDefault('PORT') as number,
  jobs: schemaDefault('JOBS_PROBE_PORT') as number,
  worker: schemaDefault('WORKER_HTTP_PORT') as number,
};

describe('docker-compose.yml', () => {
  it('sets only variables the api, jobs and worker read', () => {
    const names = appServices.flatMap(([, s]) => Object.keys(s.environment ?? {}));
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((name) => !known.has(name))).toEqual([]);
  });

  it('runs npm scripts that exist, each process kind probed on the port it listens on', () => {
    const kinds = appServices.map(([name, s]) => [name, s.command?.[2]] as const);
    expect(kinds).toEqual([
      ['api', 'serve'],
      ['jobs', 'jobs'],
      ['worker', 'worker'],
    ]);
    for (const [, service] of appServices) {
      const script = service.command?.[2] ?? '';
      expect(scripts).toContain(script);
      expect(probePort(service.healthcheck?.test)).toBe(PROBE_PORTS[script]);
    }
  });

  it('gives a stopping worker longer than its drain grace before killing it', () => {
    const worker = compose.services.worker as ComposeService & { stop_grace_period: string };
    const killAfterMs = Number(/^(\d+)m$/.exec(worker.stop_grace_period)?.[1]) * 60_000;
    const graceMs = Number(worker.environment?.WORKER_DRAIN_GRACE_MS);
    expect(killAfterMs - graceMs).toBeGreaterThanOrEqual(30_000);
  });

  it('runs two LiveKit nodes over the one Redis, on distinct ports', () => {
    const nodes = ['livekit-1', 'livekit-2'].map(
      (name) =>
        parse(compose.services[name]?.environment?.LIVEKIT_CONFIG ?? '') as {
          port: number;
          redis: { address: string };
          rtc: { tcp_port: number; udp_port: number };
        },
    );
    expect(nodes.map((n) => n.redis.address)).toEqual(['redis:6379', 'redis:6379']);
    const ports = nodes.flatMap((n) => [n.port, n.rtc.tcp_port, n.rtc.udp_port]);
    expect(new Set(ports).size).toBe(6);
    const app = compose.services.api?.environment ?? {};
    expect(app.STORAGE_URL).toMatch(/^s3:\/\//);
  });
});

describe('deploy/kubernetes/awp.yaml', () => {
  it('sets only variables the processes read, besides LiveKit’s own key pair', () => {
    const config = kube.find((o) => o.kind === 'ConfigMap')?.data ?? {};
    const secret = kube.find((o) => o.kind === 'Secret')?.stringData ?? {};
    const container = appContainers.flatMap((c) => (c.env ?? []).map((e) => e.name));
    const names = [...Object.keys(config), ...Object.keys(secret), ...container];
    expect(names.filter((name) => !known.has(name))).toEqual(['LIVEKIT_KEYS']);
  });

  it('gives a stopping worker longer than its drain grace before killing it', () => {
    const pod = kube.find((o) => o.metadata.name === 'awp-worker')?.spec?.template?.spec as {
      terminationGracePeriodSeconds: number;
      containers: Container[];
    };
    const grace = pod.containers[0]?.env?.find((e) => e.name === 'WORKER_DRAIN_GRACE_MS');
    expect(pod.terminationGracePeriodSeconds * 1000 - Number(grace?.value)).toBeGreaterThanOrEqual(
      30_000,
    );
  });

  it('probes every process kind on the port it listens on', () => {
    expect(appContainers.map((c) => c.command?.[2])).toEqual(['serve', 'jobs', 'worker']);
    for (const container of appContainers) {
      const script = container.command?.[2] ?? '';
      expect(scripts).toContain(script);
      expect(probePort(container.readinessProbe)).toBe(PROBE_PORTS[script]);
      expect(probePort(container.livenessProbe)).toBe(PROBE_PORTS[script]);
    }
  });
});
