// The example's browser page, on client-sdk: sign in to the example backend, then talk to
// the Agent by push-to-talk or text. The session comes from the backend's own endpoint
// (`startSession`), which answers the start's `session` part only; the page never sees a
// key or the backend's control credential.
import { ConversationClient, ConversationError } from '../../../client-sdk/src/index.ts';

interface Me {
  user: { id: string; name: string };
  agentId: string;
}

interface Stored {
  sessionId: string;
  connected: boolean;
  handoffRequested: boolean;
  transcript: { id: string; role: string; text: string }[];
  announcements: { id: string; orderId: string; status: string; spokenText?: string }[];
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const signInPanel = $<HTMLElement>('sign-in');
const talkPanel = $<HTMLElement>('talk');
const who = $<HTMLElement>('who');
const connectButton = $<HTMLButtonElement>('connect');
const disconnectButton = $<HTMLButtonElement>('disconnect');
const interruptButton = $<HTMLButtonElement>('interrupt');
const connection = $<HTMLElement>('connection');
const agentState = $<HTMLElement>('agent-state');
const ptt = $<HTMLButtonElement>('ptt');
const textInput = $<HTMLInputElement>('text');
const sendButton = $<HTMLButtonElement>('send');
const transcript = $<HTMLOListElement>('transcript');
const captions = $<HTMLElement>('captions');
const stored = $<HTMLElement>('stored');
const errorBox = $<HTMLElement>('error');

let me: Me | undefined;
let client: ConversationClient | undefined;
let talking = false;
let poll: ReturnType<typeof setInterval> | undefined;
const liveCaptions = new Map<string, string>();

/** Calls the example backend (same origin, cookie sent); its errors become ConversationErrors. */
async function backend<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ConversationError(answer.code ?? `http_${response.status}`, answer.detail ?? '', {
      status: response.status,
    });
  }
  return answer as T;
}

function showError(error: unknown): void {
  errorBox.textContent =
    error instanceof ConversationError ? `${error.code}: ${error.message}` : String(error);
  errorBox.hidden = false;
}

function render(): void {
  signInPanel.hidden = me !== undefined;
  talkPanel.hidden = me === undefined;
  if (me) who.textContent = `Signed in as ${me.user.name}`;
  const state = client?.connectionState ?? 'disconnected';
  const connected = state === 'connected';
  connection.textContent = state;
  connection.classList.toggle('on', connected);
  connectButton.disabled = state !== 'disconnected';
  disconnectButton.disabled = state === 'disconnected';
  for (const element of [textInput, sendButton, interruptButton]) element.disabled = !connected;
  ptt.disabled = !connected;
  ptt.textContent = talking ? 'Release to send' : 'Hold to talk (or hold Space)';
  ptt.classList.toggle('active', talking);
  captions.textContent = [...liveCaptions.values()].join(' ');
}

function addLine(role: string, text: string, id: string): void {
  const existing = transcript.querySelector<HTMLLIElement>(`li[data-id="${CSS.escape(id)}"]`);
  const item = existing ?? document.createElement('li');
  item.className = role;
  item.dataset.id = id;
  item.textContent = text;
  if (!existing) transcript.append(item);
}

async function refreshStored(): Promise<void> {
  const view = await backend<Stored>('/api/conversation').catch(() => undefined);
  if (!view) return;
  const updates = view.announcements.map(
    (a) => `${a.orderId}: ${a.status}${a.spokenText ? ` ("${a.spokenText}")` : ''}`,
  );
  stored.textContent =
    `${view.transcript.length} transcript lines persisted` +
    (view.handoffRequested ? '; hand-off to a human requested' : '') +
    (updates.length ? `; courier updates: ${updates.join(', ')}` : '');
}

async function connect(): Promise<void> {
  if (!me) return;
  errorBox.hidden = true;
  transcript.replaceChildren();
  liveCaptions.clear();
  client = new ConversationClient({
    agentId: me.agentId,
    // The backend checks the sign-in cookie, starts the application session, joins it, and
    // answers only the `session` part.
    startSession: () => backend('/api/session', {}),
  });
  client.on('connectionState', render);
  client.on('agentSpeaking', ({ state }) => {
    agentState.textContent = `agent: ${state}`;
  });
  client.on('transcriptProgress', ({ segmentId, text, final }) => {
    if (final) liveCaptions.delete(segmentId);
    else liveCaptions.set(segmentId, text);
    render();
  });
  client.on('transcript', ({ id, role, text }) => {
    liveCaptions.clear();
    addLine(role, text, id);
    render();
  });
  client.on('error', showError);
  render();
  await client.connect({ inputMode: 'push-to-talk' }).catch(() => undefined);
  poll ??= setInterval(() => void refreshStored(), 2_000);
  render();
}

function startTalking(): void {
  if (!client || ptt.disabled || talking) return;
  talking = true;
  render();
  client.startPushToTalk().catch(showError);
}

function stopTalking(): void {
  if (!client || !talking) return;
  talking = false;
  render();
  client.commitPushToTalk().catch(showError);
}

$<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  backend<Me>('/api/sign-in', {
    username: $<HTMLInputElement>('username').value,
    password: $<HTMLInputElement>('password').value,
  })
    .then((answer) => {
      me = answer;
      errorBox.hidden = true;
      render();
    })
    .catch(showError);
});
$<HTMLButtonElement>('sign-out').addEventListener('click', () => {
  void client?.disconnect();
  clearInterval(poll);
  poll = undefined;
  void backend('/api/sign-out', {}).finally(() => {
    me = undefined;
    render();
  });
});
connectButton.addEventListener('click', () => void connect());
disconnectButton.addEventListener('click', () => {
  talking = false;
  void client?.disconnect().then(render);
});
interruptButton.addEventListener('click', () => void client?.interrupt().catch(showError));
ptt.addEventListener('pointerdown', startTalking);
ptt.addEventListener('pointerup', stopTalking);
ptt.addEventListener('pointerleave', stopTalking);
document.addEventListener('keydown', (event) => {
  if (event.code === 'Space' && event.target === document.body && !event.repeat) {
    event.preventDefault();
    startTalking();
  }
});
document.addEventListener('keyup', (event) => {
  if (event.code === 'Space' && event.target === document.body) stopTalking();
});
$<HTMLFormElement>('text-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = textInput.value.trim();
  if (!client || !text) return;
  textInput.value = '';
  void client.sendText(text).catch(showError);
});

backend<Me>('/api/me')
  .then((answer) => {
    me = answer;
  })
  .catch(() => {
    me = undefined;
  })
  .finally(render);
