import type { Command } from 'commander';
import { type CreditAccount, CreditGrants } from '../billing/grants.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { Workspaces } from '../workspaces/workspaces.ts';
import { json, nonNegativeNumber, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

/**
 * `awp credit add|set|show`: credit enters a workspace only as grants (rows kept for
 * history), so balance + charges + reservations still open always equal the grants.
 */
export function registerCreditCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
  const credit = program
    .command('credit')
    .description('credit: grants and balances (1,000 credits = 1 USD)');
  const creditText = (account: CreditAccount) =>
    [
      `Workspace ${account.workspaceId}`,
      `  balance   ${account.balanceCredits} credits`,
      `  reserved  ${account.reservedCredits} credits (requests running)`,
      `  charged   ${account.chargedCredits} credits`,
      `  granted   ${account.grantedCredits} credits`,
      ...account.grants.map(
        (g) =>
          `  ${g.createdAt}  ${g.credits > 0 ? '+' : ''}${g.credits}  ${g.reason}${g.note ? `  ${g.note}` : ''}`,
      ),
    ].join('\n');
  json(
    credit
      .command('add')
      .description('grant credits: the balance grows by them, and the grant is kept')
      .addOption(workspaceOption())
      .requiredOption('--credits <n>', 'credits to add', nonNegativeNumber)
      .option('--note <text>', 'why (kept with the grant)'),
  ).action(async (options) => {
    const account = await new CreditGrants((await db()).db).add(
      options.workspace,
      options.credits,
      options.note,
    );
    printResult(outputOf(options), { credit: account }, creditText(account));
  });
  json(
    credit
      .command('set')
      .description(
        'make the available balance N by granting the difference; credit reserved by running requests is returned on top when they end',
      )
      .addOption(workspaceOption())
      .requiredOption('--credits <n>', 'new available balance in credits', nonNegativeNumber)
      .option('--note <text>', 'why (kept with the grant)'),
  ).action(async (options) => {
    const handle = (await db()).db;
    await new CreditGrants(handle).set(options.workspace, options.credits, options.note);
    const updated = await new Workspaces(handle).get(options.workspace);
    printResult(
      outputOf(options),
      { workspace: updated },
      `Balance of ${updated.id}: ${updated.credits} credits`,
    );
  });
  json(
    credit
      .command('show')
      .description('balance, reserved, charged, granted and the latest grants')
      .addOption(workspaceOption()),
  ).action(async (options) => {
    const account = await new CreditGrants((await db()).db).account(options.workspace);
    printResult(outputOf(options), { credit: account }, creditText(account));
  });
}
