import type { Command } from 'commander';
import { type Environment, loadConfig } from '../app/config.ts';
import type { DatabaseHandle } from '../db/connect.ts';
import { SecretBox } from '../secrets/secret-box.ts';
import { WebhookDeliveries } from '../webhooks/deliveries.ts';
import { WebhookEndpoints } from '../webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-types.ts';
import { webhookDeliveryBody, webhookEndpointBody } from '../webhooks/views.ts';
import { environmentOption, json, outputOf, workspaceOption } from './options.ts';
import { printResult } from './output.ts';

/** What the subcommands of `awp webhook` share. */
function webhookKit(db: () => Promise<DatabaseHandle>) {
  const endpoints = async (): Promise<WebhookEndpoints> => {
    const config = loadConfig();
    const box = SecretBox.fromConfig({ secretsKey: config.SECRETS_KEY, dataDir: config.DATA_DIR });
    return new WebhookEndpoints((await db()).db, box);
  };
  const scopeOf = (options: { workspace: string; environment: Environment }) => ({
    workspaceId: options.workspace,
    environment: options.environment,
  });
  return { db, endpoints, scopeOf };
}

type WebhookKit = ReturnType<typeof webhookKit>;

function addAddCommand(webhook: Command, kit: WebhookKit): void {
  const { endpoints, scopeOf } = kit;
  json(
    webhook
      .command('add')
      .description('add an endpoint; prints its signing secret once')
      .addOption(workspaceOption())
      .addOption(environmentOption())
      .requiredOption('--url <url>', 'where to POST the events (http or https)')
      .option(
        '--events <types>',
        `comma-separated event types (${WEBHOOK_EVENT_TYPES.join(', ')})`,
        WEBHOOK_EVENT_TYPES.join(','),
      )
      .option('--description <text>', 'what the endpoint is for'),
  ).action(async (options) => {
    const { endpoint, secret } = await (await endpoints()).create(scopeOf(options), {
      url: options.url,
      events: String(options.events)
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== ''),
      description: options.description,
    });
    printResult(
      outputOf(options),
      { id: endpoint.id, webhook: { ...webhookEndpointBody(endpoint), secret } },
      `Added webhook ${endpoint.id} for ${endpoint.events.join(', ')}\nSigning secret (shown once): ${secret}`,
    );
  });
}

function addListCommand(webhook: Command, kit: WebhookKit): void {
  const { endpoints, scopeOf } = kit;
  json(
    webhook
      .command('list')
      .description('list the endpoints of an environment')
      .addOption(workspaceOption())
      .addOption(environmentOption()),
  ).action(async (options) => {
    const found = await (await endpoints()).list(scopeOf(options));
    printResult(
      outputOf(options),
      { webhooks: found.map(webhookEndpointBody) },
      found
        .map(
          (e) => `${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  ${e.events.join(',')}`,
        )
        .join('\n') || 'No webhook endpoints.',
    );
  });
}

function addRemoveCommand(webhook: Command, kit: WebhookKit): void {
  const { endpoints, scopeOf } = kit;
  json(
    webhook
      .command('remove')
      .description('remove an endpoint and its deliveries')
      .addOption(workspaceOption())
      .addOption(environmentOption())
      .requiredOption('--webhook <id>', 'endpoint id (wh_...)'),
  ).action(async (options) => {
    await (await endpoints()).remove(scopeOf(options), options.webhook);
    printResult(outputOf(options), { removed: options.webhook }, `Removed ${options.webhook}`);
  });
}

function addDeliveriesCommand(webhook: Command, kit: WebhookKit): void {
  const { db, scopeOf } = kit;
  json(
    webhook
      .command('deliveries')
      .description('the newest deliveries of an endpoint: state, attempts, last status or error')
      .addOption(workspaceOption())
      .addOption(environmentOption())
      .requiredOption('--webhook <id>', 'endpoint id (wh_...)')
      .option('--limit <n>', 'how many (1-100)', '20'),
  ).action(async (options) => {
    const limit = Math.min(100, Math.max(1, Number.parseInt(options.limit, 10) || 20));
    const page = await new WebhookDeliveries((await db()).db).list(
      scopeOf(options),
      options.webhook,
      { limit },
    );
    printResult(
      outputOf(options),
      { deliveries: page.deliveries.map(webhookDeliveryBody), next_cursor: page.nextCursor },
      page.deliveries
        .map(
          (d) =>
            `${d.createdAt}  ${d.eventType}  ${d.state}  attempts ${d.attempts}` +
            (d.lastError ? `  ${d.lastError}` : d.lastStatus ? `  HTTP ${d.lastStatus}` : ''),
        )
        .join('\n') || 'No deliveries.',
    );
  });
}

/** `awp webhook add|list|remove|deliveries`: where a workspace's events are sent. */
export function registerWebhookCommands(program: Command, db: () => Promise<DatabaseHandle>): void {
  const kit = webhookKit(db);
  const webhook = program
    .command('webhook')
    .description('endpoints that receive a workspace’s events (signed, retried)');
  addAddCommand(webhook, kit);
  addListCommand(webhook, kit);
  addRemoveCommand(webhook, kit);
  addDeliveriesCommand(webhook, kit);
}
