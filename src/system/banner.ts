import { BOOTSTRAP_OWNER_EMAIL, type BootstrapResult } from '../workspaces/bootstrap.ts';

export interface BannerInput {
  productionUrl: string;
  developmentUrl: string;
  /** Set on the first start: the keys just created, shown this once. */
  created: BootstrapResult | null;
  /** The workspace a newcomer uses (the first one), when any exists. */
  workspaceId: string | undefined;
  /** The demo page, when it is served. */
  demoUrl?: string | undefined;
  /** The operator dashboard. */
  dashboardUrl: string;
}

/**
 * What a person sees after `npm start`: where the service listens, the keys (first start
 * only: only their hashes are kept) and the next command to try. Written straight to the
 * terminal, never through the logger, because it can hold keys.
 */
export function startBanner(input: BannerInput): string {
  const key = input.created?.developmentKey.key ?? 'awp_...';
  const lines = [
    '',
    '  AWP is running.',
    `    production:   ${input.productionUrl}   (production keys)`,
    `    development:  ${input.developmentUrl}   (development keys)`,
    `    API document: ${input.developmentUrl}/v1/openapi.json`,
  ];
  if (input.demoUrl) lines.push('', `  Talk to an Agent in your browser: ${input.demoUrl}`);
  lines.push('', `  Operator dashboard (keys, voices, cloning): ${input.dashboardUrl}`);
  if (input.created) {
    lines.push(
      '',
      '  Created a development workspace. Keep these: they are not shown again.',
      `    workspace:           ${input.created.workspaceId}`,
      `    production key:      ${input.created.productionKey.key}`,
      `    development key:     ${input.created.developmentKey.key}`,
      `    dashboard sign-in:   ${input.created.owner.email} / ${input.created.owner.password}`,
    );
  } else if (input.workspaceId) {
    lines.push(
      '',
      '  Keys are shown once, when created. A new development key:',
      `    npm run awp -- key create --workspace ${input.workspaceId} --environment development --label me`,
      '  A new dashboard password (read from standard input):',
      `    npm run awp -- member set-password --email ${BOOTSTRAP_OWNER_EMAIL}`,
    );
  }
  lines.push(
    '',
    '  Try it:',
    `    curl -s -H "Authorization: Bearer ${key}" ${input.developmentUrl}/v1/voices`,
    `    curl -s -H "Authorization: Bearer ${key}" -H 'content-type: application/json' \\`,
    `      -d '{"voice_id":"voice_en0ITv6xOZPfMiT0sGIW","text":"Hello!","output_format":"opus_48000_64"}' \\`,
    `      ${input.developmentUrl}/v1/tts -o hello.ogg`,
    '',
  );
  return `${lines.join('\n')}\n`;
}
