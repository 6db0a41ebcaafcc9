// The import rules of the whole tree (`npm run deps`, part of `npm run check`). Each rule
// says which way code may depend; docs/decisions.md ("Worker boundary and import rules")
// gives the reasons.

/** The api's domain modules: each decides one part of the product. */
const DOMAINS =
  '^src/(agents|application|conversations|demo|agent-sessions|operator|playground|' +
  'streaming-sessions|transcription|translation|tts|voices|webhooks|workspaces)/';

/**
 * A domain's HTTP adapters, which may use `src/http/`: its route and request-schema
 * modules and the WebSocket message parsers (`protocol.ts`), and the operator dashboard's
 * routes, guard and pages.
 */
const HTTP_ADAPTERS = [
  '[/-](routes?|schemas)\\.ts$',
  '^src/(tts/stream|transcription)/protocol\\.ts$',
  '^src/operator/',
];

/**
 * Everything the worker may import besides Node's own modules: itself, the boundary module
 * and the speech-to-text seam of the api, media/, protocol/ (`@awp/protocol`) and packages.
 */
const WORKER_MAY_USE =
  '^(worker/|media/|protocol/|node_modules/|src/stt/|src/worker-boundary/(index|lease-renewal)\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'worker-through-boundary',
      severity: 'error',
      comment:
        'worker/ imports the api only through src/worker-boundary/index.ts (its lease thread ' +
        'through src/worker-boundary/lease-renewal.ts, and the STT seam ' +
        'in src/stt/); besides that only media/, protocol/ and packages.',
      from: { path: '^worker/' },
      to: { pathNot: WORKER_MAY_USE, dependencyTypesNot: ['core'] },
    },
    {
      name: 'media-protocol-standalone',
      severity: 'error',
      comment: 'media/ and protocol/ import nothing of the service or the worker.',
      from: { path: '^(media|protocol)/' },
      to: { path: '^(src|worker)/' },
    },
    {
      name: 'sdks-standalone',
      severity: 'error',
      comment: 'The SDKs import nothing of src/, worker/ or media/ (only protocol/).',
      from: { path: '^(backend-sdk|client-sdk|react)/' },
      to: { path: '^(src|worker|media)/' },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment:
        'Data flows one way: http parses and authenticates, a domain decides. A domain module ' +
        'never imports src/http/; only its route, schema and message-parsing modules do. ' +
        'page-cursor.ts is a paging codec with no HTTP in it.',
      from: { path: DOMAINS, pathNot: HTTP_ADAPTERS },
      to: { path: '^src/http/', pathNot: '^src/http/page-cursor\\.ts$' },
    },
    {
      name: 'providers-media-not-domain',
      severity: 'error',
      comment: 'Providers and media produce audio; they never import a domain module.',
      from: { path: '^(src/tts/providers/|media/)' },
      to: { path: `${DOMAINS}|^src/billing/`, pathNot: '^src/tts/providers/' },
    },
    {
      name: 'billing-no-domain',
      severity: 'error',
      comment: 'Billing records and prices; it imports no domain module.',
      from: { path: '^src/billing/' },
      to: { path: DOMAINS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/|\\.d\\.ts$' },
    // Type-only imports count: a cycle through types is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
