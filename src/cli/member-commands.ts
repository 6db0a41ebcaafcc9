import type { Command } from 'commander';
import type { DatabaseHandle } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import { setMemberPassword } from '../operator/operator-sessions.ts';
import { printResult } from './output.ts';

/** Reads the password from the named variable or standard input: never from argv. */
async function readPassword(envName: string | undefined): Promise<string> {
  if (envName !== undefined) {
    const value = process.env[envName];
    if (!value) throw new ApiError('invalid_request', `Environment variable ${envName} is empty.`);
    return value;
  }
  if (process.stdin.isTTY) {
    throw new ApiError(
      'invalid_request',
      'Pipe the password on standard input, or name a variable with --password-env.',
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // Only the line break a pipe adds is dropped; spaces belong to the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** `awp member set-password`: the operator API's sign-in password of a workspace member. */
export function registerMemberPasswordCommand(
  member: Command,
  db: () => Promise<DatabaseHandle>,
): void {
  member
    .command('set-password')
    .description(
      'set the operator sign-in password of a user (read from stdin or --password-env); ends their sessions',
    )
    .requiredOption('--email <email>', 'user email (the user must be a member of a workspace)')
    .option('--password-env <name>', 'read the password from this environment variable')
    .option('--json', 'print one JSON object on stdout (for scripts)')
    .action(async (options: { email: string; passwordEnv?: string; json?: boolean }) => {
      const password = await readPassword(options.passwordEnv);
      const result = await setMemberPassword((await db()).db, options.email, password);
      printResult(
        options.json ? 'json' : 'text',
        { user_id: result.userId, email: options.email.trim().toLowerCase() },
        `Password set for ${options.email.trim().toLowerCase()}; their sessions were ended.`,
      );
    });
}
