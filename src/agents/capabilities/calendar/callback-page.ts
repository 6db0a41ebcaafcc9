import type { CallbackOutcome } from './service.ts';

/** Headers of every callback answer: never cached, never leaking the URL onwards. */
export const CALLBACK_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
} as const;

const MESSAGES: Record<CallbackOutcome['result'], { title: string; text: string }> = {
  connected: {
    title: 'Google Calendar connected',
    text: 'Your calendar is connected. You can close this window.',
  },
  access_denied: {
    title: 'Google Calendar not connected',
    text: 'You declined access on Google’s page. Start again from the app to connect.',
  },
  scope_denied: {
    title: 'Google Calendar not connected',
    text: 'Access to your calendar events was not granted. Start again from the app and allow it.',
  },
  state_invalid: {
    title: 'Link not valid',
    text: 'This sign-in link is not valid. Start again from the app.',
  },
  state_used: {
    title: 'Link already used',
    text: 'This sign-in link was used already. Start again from the app.',
  },
  state_expired: {
    title: 'Link expired',
    text: 'This sign-in link expired. Start again from the app.',
  },
  exchange_failed: {
    title: 'Google Calendar not connected',
    text: 'Google did not confirm the connection. Start again from the app.',
  },
  authorization_failed: {
    title: 'Google Calendar not connected',
    text: 'Google did not complete the sign-in. Start again from the app.',
  },
  unavailable: {
    title: 'Google Calendar unavailable',
    text: 'Calendar connections are not available right now.',
  },
};

/**
 * Where the callback sends the browser: the flow's `return_url` with `google_calendar`
 * (`connected` or `error`), `google_calendar_error` (the {@link CallbackOutcome} code) and
 * `google_calendar_state` (the flow's `state`), the app's own query parameters kept.
 */
export function returnLocation(returnUrl: string, outcome: CallbackOutcome): string {
  const url = new URL(returnUrl);
  for (const name of ['google_calendar', 'google_calendar_error', 'google_calendar_state']) {
    url.searchParams.delete(name);
  }
  if (outcome.result === 'connected') {
    url.searchParams.set('google_calendar', 'connected');
  } else {
    url.searchParams.set('google_calendar', 'error');
    url.searchParams.set('google_calendar_error', outcome.result);
  }
  if (outcome.state) url.searchParams.set('google_calendar_state', outcome.state);
  return url.toString();
}

/** The small page the callback answers when the flow named no `return_url`. */
export function callbackPage(outcome: CallbackOutcome): string {
  const { title, text } = MESSAGES[outcome.result];
  const code = outcome.result === 'connected' ? '' : `<p class="code">${outcome.result}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="google-calendar-result" content="${outcome.result}">
<title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}.code{color:#777;font-family:monospace}</style>
</head>
<body>
<h1>${title}</h1>
<p>${text}</p>
${code}
</body>
</html>
`;
}
