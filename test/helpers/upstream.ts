import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from './server.ts';

export interface AwpResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the operator tool with the service's environment (same database, same DATA_DIR). */
export function runAwp(env: Record<string, string>, args: string[], input?: string): AwpResult {
  const result = spawnSync(process.execPath, ['bin/awp.js', ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 30_000,
    ...(input === undefined ? {} : { input }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * {@link runAwp} without blocking the event loop, for a test that goes on with connections
 * it already holds to the api: a blocked loop misses the api closing them as idle (after its
 * 5 s keep-alive), and the next request would be sent on a closed one.
 */
export function runAwpAsync(
  env: Record<string, string>,
  args: string[],
  input?: string,
): Promise<AwpResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/awp.js', ...args], {
      cwd: ROOT,
      env,
      timeout: 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export interface ImportVoiceArgs {
  workspaceId: string;
  environment?: 'production' | 'development';
  provider: 'elevenlabs' | 'fishaudio';
  providerVoiceId: string;
  model: string;
  name: string;
  nsfw?: boolean;
  providerAccountId?: string;
}

/** Imports a provider voice through `awp voice import --json`; returns the new voice id. */
export function importVoice(env: Record<string, string>, args: ImportVoiceArgs): string {
  const result = runAwp(env, [
    'voice',
    'import',
    '--workspace',
    args.workspaceId,
    '--environment',
    args.environment ?? 'production',
    '--provider',
    args.provider,
    '--provider-voice-id',
    args.providerVoiceId,
    '--model',
    args.model,
    '--name',
    args.name,
    ...(args.nsfw ? ['--nsfw'] : []),
    ...(args.providerAccountId ? ['--provider-account', args.providerAccountId] : []),
    '--json',
  ]);
  if (result.status !== 0) {
    throw new Error(`voice import failed (${result.status}): ${result.stdout}${result.stderr}`);
  }
  return (JSON.parse(result.stdout) as { id: string }).id;
}

/** Adds a workspace provider account through `awp provider-account add`, key on stdin. */
export function addProviderAccount(
  env: Record<string, string>,
  args: {
    workspaceId: string;
    provider: 'elevenlabs' | 'fishaudio';
    label: string;
    apiKey: string;
  },
): string {
  const result = runAwp(
    env,
    [
      'provider-account',
      'add',
      '--workspace',
      args.workspaceId,
      '--provider',
      args.provider,
      '--label',
      args.label,
      '--json',
    ],
    `${args.apiKey}\n`,
  );
  if (result.status !== 0) {
    throw new Error(
      `provider-account add failed (${result.status}): ${result.stdout}${result.stderr}`,
    );
  }
  return (JSON.parse(result.stdout) as { id: string }).id;
}
