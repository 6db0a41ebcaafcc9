// The demo page served under /demo on the development listener: pick a published Agent,
// connect, talk by voice (automatic turn-taking by default, push-to-talk one click away) or
// text, read the live transcript. It holds no key: tokens come
// from the server's dev-only endpoint (src/demo/routes.ts), one per connect.
import { ConversationClient, ConversationError, type InputMode } from '../src/index.ts';

interface DemoAgent {
  id: string;
  name: string;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const agentSelect = $<HTMLSelectElement>('agent');
const userName = $<HTMLInputElement>('user-name');
const voiceInput = $<HTMLInputElement>('voice-input');
const connectButton = $<HTMLButtonElement>('connect');
const disconnectButton = $<HTMLButtonElement>('disconnect');
const connection = $<HTMLSpanElement>('connection');
const agentState = $<HTMLSpanElement>('agent-state');
const avatar = $<HTMLImageElement>('avatar');
const mute = $<HTMLInputElement>('mute');
const interruptButton = $<HTMLButtonElement>('interrupt');
const ptt = $<HTMLButtonElement>('ptt');
const textForm = $<HTMLFormElement>('text-form');
const textInput = $<HTMLInputElement>('text');
const textOnly = $<HTMLInputElement>('text-only');
const sendButton = $<HTMLButtonElement>('send');
const transcript = $<HTMLOListElement>('transcript');
const captions = $<HTMLParagraphElement>('captions');
const errorBox = $<HTMLParagraphElement>('error');

let client: ConversationClient | null = null;
let talking = false;
const liveCaptions = new Map<string, string>();

async function apiJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(path, init);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ConversationError(body.code ?? `http_${response.status}`, body.detail ?? 'failed', {
      status: response.status,
    });
  }
  return body as T;
}

function showError(error: unknown): void {
  const text =
    error instanceof ConversationError ? `${error.code}: ${error.message}` : String(error);
  errorBox.textContent = text;
  errorBox.hidden = false;
}

/** The chosen turn-taking: automatic (just speak) unless push-to-talk is picked. */
function inputMode(): InputMode {
  const checked = document.querySelector<HTMLInputElement>('input[name="mode"]:checked');
  return checked?.value === 'push-to-talk' ? 'push-to-talk' : 'automatic';
}

function render(): void {
  const state = client?.connectionState ?? 'disconnected';
  const connected = state === 'connected';
  connection.textContent = state;
  connection.classList.toggle('connected', connected);
  connectButton.disabled = state !== 'disconnected' || !agentSelect.value;
  disconnectButton.disabled = state === 'disconnected';
  for (const element of [textInput, sendButton, interruptButton]) element.disabled = !connected;
  ptt.disabled = !(connected && client?.inputAudioEnabled && client.inputMode === 'push-to-talk');
  // Before connecting, the button says what the chosen mode will do.
  const mode = client?.inputMode ?? inputMode();
  ptt.textContent =
    mode === 'automatic'
      ? 'Automatic mode: just speak'
      : talking
        ? 'Release to send'
        : 'Hold to talk (or hold Space)';
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
  item.scrollIntoView({ block: 'nearest' });
}

/** A stable end-user id for this browser (Agents with memory need one). */
function endUserId(): string {
  let id = localStorage.getItem('awp-demo-end-user');
  if (!id) {
    id = crypto.randomUUID();
    localStorage.setItem('awp-demo-end-user', id);
  }
  return id;
}

async function connect(): Promise<void> {
  errorBox.hidden = true;
  transcript.replaceChildren();
  liveCaptions.clear();
  const agentId = agentSelect.value;
  client = new ConversationClient({
    agentId,
    apiOrigin: location.origin,
    inputAudioEnabled: voiceInput.checked,
    sessionContext: {
      userName: userName.value,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    },
    // A fresh token on every connect, from the dev-only endpoint of this server.
    sessionToken: () =>
      apiJson<{ token: string; expires_at: string }>('/demo/api/session-token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent_id: agentId, end_user_id: endUserId() }),
      }),
  });
  client.muted = mute.checked;
  client.on('connectionState', () => render());
  client.on('session', (session) => {
    avatar.hidden = !session.avatar?.imageUrl;
    if (session.avatar?.imageUrl) avatar.src = session.avatar.imageUrl;
  });
  client.on('agentSpeaking', ({ speaking, state }) => {
    agentState.textContent = `agent: ${state}`;
    agentState.classList.toggle('speaking', speaking);
    render();
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
  client.on('declined', ({ reason }) =>
    addLine('agent', `(stays quiet: ${reason})`, crypto.randomUUID()),
  );
  client.on('error', showError);
  render();
  await client.connect({ inputMode: inputMode() }).catch(() => undefined);
  render();
}

function startTalking(): void {
  if (!client || ptt.disabled || talking) return;
  talking = true;
  render();
  client.startPushToTalk().catch(() => undefined);
}

function stopTalking(): void {
  if (!client || !talking) return;
  talking = false;
  render();
  client.commitPushToTalk().catch(() => undefined);
}

connectButton.addEventListener('click', () => void connect());
disconnectButton.addEventListener('click', () => {
  talking = false;
  void client?.disconnect().then(render);
});
mute.addEventListener('change', () => {
  if (client) client.muted = mute.checked;
});
interruptButton.addEventListener('click', () => void client?.interrupt().catch(() => undefined));
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
  radio.addEventListener('change', () => {
    if (client?.connectionState !== 'connected') return render();
    void client
      .setInputMode(inputMode())
      .catch(() => undefined)
      .then(render);
    render();
  });
}
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
textForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = textInput.value.trim();
  if (!client || !text) return;
  textInput.value = '';
  void client.sendText(text, { audioResponse: !textOnly.checked }).catch(() => undefined);
});
agentSelect.addEventListener('change', render);

apiJson<{ agents: DemoAgent[] }>('/demo/api/agents')
  .then(({ agents }) => {
    agentSelect.replaceChildren(
      ...agents.map((agent) => new Option(`${agent.name} (${agent.id.slice(0, 8)})`, agent.id)),
    );
    $('agents-empty').hidden = agents.length > 0;
    if (agents.length === 0) agentSelect.append(new Option('No published Agent', ''));
    // `/demo?agent=ID` (the dashboard's Talk in demo) opens with that Agent chosen.
    const wanted = new URLSearchParams(location.search).get('agent');
    if (wanted && agents.some((agent) => agent.id === wanted)) agentSelect.value = wanted;
    render();
  })
  .catch(showError);
