export type Output = 'json' | 'text';

/** Prints a command's result: one JSON object with `--json`, else a human-readable line. */
export function printResult(output: Output, value: object, text: string): void {
  process.stdout.write(output === 'json' ? `${JSON.stringify(value)}\n` : `${text}\n`);
}
