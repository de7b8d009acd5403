// The Vercel AI SDK behind the tool-result-conformance bridge protocol (bridge.schema.json).
//
// One process per SDK release: `<release>/main.mjs` imports that release's packages and calls
// `run(sdk)`. The bridge writes its handshake, then answers one JSON line per request line:
//
// 1. The history becomes the SDK's own messages the way an AI SDK app builds them: the prompt
//    as a user (or system) message; each tool turn is run by the SDK's own tool loop:
//    `generateText` with a model that asks for the turn's tool calls (`MockLanguageModelV*`
//    from `ai/test`, standing in for the provider's first answer) and a real `tool()` per
//    tool name, whose `execute` returns the history's result (a failed call throws its error
//    text) and whose `toModelOutput` turns media into the release's content parts; the SDK
//    executes the tools and writes the assistant and tool messages (`response.messages`).
//    Tool-produced user content (style `prompt`) is a user message after the turn's tool
//    message (the SDK has no provenance to attach).
// 2. Those messages go to `generateText` with the row's official provider package, its base
//    URL on a loopback server in this process that records the request body and answers 400:
//    the payload is that body (Bedrock: the Converse parameters, `modelId` from the path, media
//    bytes as `{"$bytes": base64}`). An SDK error raised before any request arrived is the
//    answer: `UnsupportedFunctionalityError` (from `@ai-sdk/provider`) is the declared
//    refusal, anything else an error.
// 3. `render_stored`: the messages go through JSON (`JSON.parse(JSON.stringify(messages))`),
//    how an app stores `response.messages`, and are sent again.

import http from 'node:http';
import readline from 'node:readline';
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';

export const REFUSAL = 'UnsupportedFunctionalityError';
export const KEY = 'conformance-not-a-key';
/** The stand-in AWS credentials, given explicitly: the example pair of AWS's own documentation,
 * which the suite's double and senders use too (`conformance.recording.send.FAKE_KEYS`). */
export const AWS = {
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
/** The stand-in Google Cloud project and access token, the suite's own
 * (`conformance.targets.gcp_credentials.PROJECT` and `TOKEN`), and the regions docs/matrix.md
 * records Claude and Gemini in. */
export const GCP = {
  project: 'conformance-project',
  token: 'conformance-not-a-token',
  claudeRegion: 'us-east5',
  geminiRegion: 'us-central1',
};

const PACKAGES = [
  'ai',
  '@ai-sdk/provider',
  '@ai-sdk/provider-utils',
  '@ai-sdk/openai',
  '@ai-sdk/anthropic',
  '@ai-sdk/google',
  '@ai-sdk/amazon-bedrock',
  '@ai-sdk/google-vertex',
  'google-auth-library',
  '@ai-sdk/mistral',
  '@ai-sdk/groq',
  '@ai-sdk/xai',
  '@ai-sdk/cohere',
];

/** Packages a provider package pins for itself: `@ai-sdk/amazon-bedrock/anthropic` builds the
 * Messages body with the `@ai-sdk/anthropic` that `@ai-sdk/amazon-bedrock` depends on exactly,
 * installed under it where it differs from the release's own (`name>dependency` in the versions);
 * `@ai-sdk/google-vertex` builds Claude's body with its own `@ai-sdk/anthropic` and Gemini's with
 * its own `@ai-sdk/google` the same way. */
const NESTED = [
  ['@ai-sdk/amazon-bedrock', '@ai-sdk/anthropic'],
  ['@ai-sdk/google-vertex', '@ai-sdk/anthropic'],
  ['@ai-sdk/google-vertex', '@ai-sdk/google'],
];

function versionAt(folder, path) {
  try {
    return JSON.parse(readFileSync(new URL(`${path}/package.json`, folder), 'utf8')).version;
  } catch {
    return undefined; // not installed in this release's folder
  }
}

/** The release's version (`ai`'s) and every package it drives, from its node_modules. */
export function versionsOf(folder) {
  const versions = {};
  for (const name of PACKAGES) {
    const found = versionAt(folder, `node_modules/${name}`);
    if (found !== undefined) versions[name] = found;
  }
  for (const [name, dependency] of NESTED) {
    if (versions[name] === undefined) continue;
    const found =
      versionAt(folder, `node_modules/${name}/node_modules/${dependency}`) ?? versions[dependency];
    if (found !== undefined) versions[`${name}>${dependency}`] = found;
  }
  versions.node = process.versions.node;
  return { version: versions.ai, versions };
}

/** A model that answers every call with these tool calls (the SDK's own test model). */
export function mockModel(MockModel, calls) {
  const usage = {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 0, text: 0, reasoning: 0 },
  };
  return new MockModel({
    supportedUrls: { '*/*': [/.*/] }, // it downloads nothing: only the provider's call may
    doGenerate: async () => ({
      content: calls,
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    }),
  });
}

// --- the loopback recorder ----------------------------------------------------------------------

const captured = new Map(); // channel -> [{ method, path, body }]
let channels = 0;

function startRecorder() {
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const found = /^\/c(\d+)(\/.*)$/.exec(request.url ?? '');
      if (found && captured.has(found[1])) {
        captured.get(found[1]).push({
          method: request.method,
          path: found[2],
          body: Buffer.concat(chunks),
        });
      }
      const body = JSON.stringify({
        error: {
          message: 'conformance recorder: request recorded, not answered',
          type: 'invalid_request_error',
          code: 'conformance_recorded',
        },
      });
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      server.unref();
      resolve(`http://127.0.0.1:${server.address().port}`);
    });
  });
}

// --- rows: the official provider package per api --------------------------------------------------

/** Per api: the provider package and how a user makes the row's model with a base URL. */
export const PROVIDERS = {
  'openai-chat': ['@ai-sdk/openai', (p, base, m) => p.createOpenAI({ baseURL: `${base}/v1`, apiKey: KEY }).chat(m)],
  'openai-responses': [
    '@ai-sdk/openai',
    (p, base, m) => p.createOpenAI({ baseURL: `${base}/v1`, apiKey: KEY }).responses(m),
  ],
  anthropic: ['@ai-sdk/anthropic', (p, base, m) => p.createAnthropic({ baseURL: `${base}/v1`, apiKey: KEY })(m)],
  gemini: [
    '@ai-sdk/google',
    (p, base, m) => p.createGoogleGenerativeAI({ baseURL: `${base}/v1beta`, apiKey: KEY })(m),
  ],
  'bedrock-converse': [
    '@ai-sdk/amazon-bedrock',
    (p, base, m) => p.createAmazonBedrock({ baseURL: base, ...AWS })(m),
  ],
  // Claude's Messages body through InvokeModel (`/model/{id}/invoke`): the package's Anthropic
  // provider, `@ai-sdk/amazon-bedrock/anthropic` (`createAmazonBedrockAnthropic` in 7, which
  // keeps `createBedrockAnthropic` as a deprecated alias; `createBedrockAnthropic` in 6).
  'anthropic-bedrock': [
    '@ai-sdk/amazon-bedrock/anthropic',
    (p, base, m) => (p.createAmazonBedrockAnthropic ?? p.createBedrockAnthropic)({ baseURL: base, ...AWS })(m),
  ],
  // Claude's Messages body on Vertex AI (`.../publishers/anthropic/models/{model}:rawPredict`):
  // `@ai-sdk/google-vertex/anthropic` (`createGoogleVertexAnthropic` in 7, which keeps
  // `createVertexAnthropic` as a deprecated alias; `createVertexAnthropic` in 6). `baseURL` is the
  // models prefix the provider builds from `project` and `location`; the credential is `vertexAuth`.
  'anthropic-vertex': [
    '@ai-sdk/google-vertex/anthropic',
    (p, base, m, auth) =>
      (p.createGoogleVertexAnthropic ?? p.createVertexAnthropic)({
        project: GCP.project,
        location: GCP.claudeRegion,
        baseURL: `${base}/v1/projects/${GCP.project}/locations/${GCP.claudeRegion}/publishers/anthropic/models`,
        googleAuthOptions: vertexAuth(auth),
      })(m),
  ],
  // Gemini's generateContent on Vertex AI (`/v1beta1/projects/{p}/locations/{l}/publishers/google
  // /models/{model}:generateContent`): `@ai-sdk/google-vertex` (`createGoogleVertex` in 7, which
  // keeps `createVertex` as a deprecated alias; `createVertex` in 6), with Google Cloud
  // credentials, not an express-mode API key.
  'gemini-vertex': [
    '@ai-sdk/google-vertex',
    (p, base, m, auth) =>
      (p.createGoogleVertex ?? p.createVertex)({
        project: GCP.project,
        location: GCP.geminiRegion,
        baseURL: `${base}/v1beta1/projects/${GCP.project}/locations/${GCP.geminiRegion}/publishers/google`,
        googleAuthOptions: vertexAuth(auth),
      })(m),
  ],
  mistral: ['@ai-sdk/mistral', (p, base, m) => p.createMistral({ baseURL: `${base}/v1`, apiKey: KEY })(m)],
  groq: ['@ai-sdk/groq', (p, base, m) => p.createGroq({ baseURL: `${base}/openai/v1`, apiKey: KEY })(m)],
  xai: ['@ai-sdk/xai', (p, base, m) => p.createXai({ baseURL: `${base}/v1`, apiKey: KEY }).chat(m)],
  cohere: ['@ai-sdk/cohere', (p, base, m) => p.createCohere({ baseURL: `${base}/v2`, apiKey: KEY })(m)],
};

/** `googleAuthOptions` for the Vertex providers, which authenticate through google-auth-library
 * (`createAuthTokenGenerator`: `new GoogleAuth(options).getClient()`, then `getAccessToken()`):
 * its documented `authClient`, an `OAuth2Client` holding the stand-in access token and no refresh
 * token, so it hands out `GCP.token` and never exchanges anything. A service-account key cannot be
 * kept local here (google-auth-library's JWT grant posts to its fixed `GOOGLE_TOKEN_URL`), and
 * without credentials `GoogleAuth` would look for Application Default Credentials, the metadata
 * server among them. `auth` is the release's google-auth-library. */
export function vertexAuth(auth) {
  const authClient = new auth.OAuth2Client();
  authClient.setCredentials({ access_token: GCP.token });
  return { authClient, projectId: GCP.project };
}

/** The name the fixture host goes by in the tool results a provider downloads by itself
 * (`sdk.downloadsToolFiles`: `@ai-sdk/google-vertex`'s Gemini model, whose
 * `downloadToolResultFiles` fetches every http(s) file of a tool result with provider-utils'
 * `downloadBlob`, a path `experimental_download` does not reach). That download refuses literal
 * private addresses and local names (`validateDownloadUrl`), and the suite's fixture host is on
 * 127.0.0.1; so there the fixture host is named with a reserved `.test` name (RFC 6761), which
 * the bridge process's fetch resolves to 127.0.0.1 (`resolvingFetch`, as a hosts entry would):
 * a user's public URL is downloaded the same way. The payload names it 127.0.0.1 again
 * (`payloadOf`). */
export const FIXTURE_NAME = 'fixtures.conformance.test';

/** A fetch that sends `FIXTURE_NAME` to 127.0.0.1 and everything else to `given` unchanged:
 * the process's global fetch, since 6's download takes no fetch option (provider-utils 4 uses the
 * global fetch once an app has replaced it, its own DNS-checking fetch otherwise). */
export function resolvingFetch(given) {
  return (url, init) =>
    given(
      typeof url === 'string' || url instanceof URL
        ? String(url).replace(`//${FIXTURE_NAME}:`, '//127.0.0.1:')
        : url,
      init,
    );
}

/** The messages with the fixture host named `FIXTURE_NAME` in tool-result files given by URL:
 * 7's `{type: 'file', data: {type: 'url', url}}`, 6's `image-url` and `file-url` (a URL object
 * stays one, a URL string stays a string). */
export function namedFixtures(messages) {
  const rename = (given) => {
    const url = new URL(given);
    if (url.hostname !== '127.0.0.1') return given;
    url.hostname = FIXTURE_NAME;
    return typeof given === 'string' ? url.href : url;
  };
  const named = (item) => {
    if (item?.type === 'image-url' || item?.type === 'file-url') return { ...item, url: rename(item.url) };
    if (item?.type !== 'file' || item.data?.type !== 'url') return item;
    return { ...item, data: { ...item.data, url: rename(item.data.url) } };
  };
  const output = (part) =>
    part.type === 'tool-result' && part.output?.type === 'content'
      ? { ...part, output: { ...part.output, value: part.output.value.map(named) } }
      : part;
  return messages.map((m) => (m.role === 'tool' ? { ...m, content: m.content.map(output) } : m));
}

/** The npm package a provider's import specifier is in (`@ai-sdk/amazon-bedrock/anthropic` is in
 * `@ai-sdk/amazon-bedrock`). */
export function packageOf(specifier) {
  return specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

/** The apis this release serves: all but those it declares unsupported (`sdk.unsupported`). */
function served(sdk) {
  return Object.keys(PROVIDERS).filter((api) => !(api in sdk.unsupported));
}


// --- the history as the SDK's messages -------------------------------------------------------------

export function isText(part) {
  return part.type === 'text';
}

/** The history's media bytes (base64 in the URL-safe alphabet, as pydantic writes it) in the
 * standard alphabet, as an app holds base64 data. */
export function standardBase64(part) {
  if (part.data === undefined) return part;
  return { ...part, data: Buffer.from(part.data, 'base64').toString('base64') };
}

/** The history with every media part's data in the standard base64 alphabet. */
export function normalized(history) {
  return history.map((item) =>
    Array.isArray(item.content) ? { ...item, content: item.content.map(standardBase64) } : item,
  );
}

/** A user message part for a history part (`ImagePart`, `FilePart`, `TextPart`). */
export function userPart(sdk, part) {
  if (isText(part)) return { type: 'text', text: part.text };
  const data = part.data !== undefined ? part.data : new URL(part.url);
  if (part.type === 'image') return sdk.imagePart(data, part.media_type);
  return { type: 'file', data, mediaType: part.media_type, filename: part.identifier };
}

export function messageOf(sdk, item) {
  if (typeof item.content === 'string') return { role: item.role, content: item.content };
  if (item.role === 'user') {
    return { role: 'user', content: item.content.map((part) => userPart(sdk, part)) };
  }
  const text = item.content.filter(isText).map((p) => p.text).join('');
  return { role: item.role, content: text };
}

/** What the tool's `execute` returns: the exact string for a text-only result, else the parts. */
export function toolOutput(result) {
  const parts = result.content;
  if (parts.length === 1 && isText(parts[0])) return parts[0].text;
  return { parts };
}

/** A tool per name: `execute` returns the history's result for the call id, `toModelOutput`
 * makes the release's content parts (`sdk.contentPart`) out of its media. */
export function toolsOf(sdk, history, results) {
  const names = [...new Set(history.filter((i) => i.type !== 'message').map((i) => i.name))];
  const tools = {};
  for (const name of names) {
    tools[name] = sdk.ai.tool({
      description: `The ${name} tool.`,
      inputSchema: sdk.ai.jsonSchema({ type: 'object', properties: {} }),
      execute: async (_input, { toolCallId }) => {
        const result = results.get(toolCallId);
        if (result === undefined) return '';
        if (result.status === 'error') {
          throw new Error(result.content.filter(isText).map((p) => p.text).join(''));
        }
        return toolOutput(result);
      },
      toModelOutput: ({ output }) =>
        typeof output === 'string'
          ? { type: 'text', value: output }
          : { type: 'content', value: output.parts.map(sdk.contentPart) },
    });
  }
  return tools;
}

/** One tool turn, run by the SDK's own loop: a model that asks for these calls, real tools. */
export async function runTurn(sdk, messages, calls, tools, instructions) {
  const model = sdk.mockModel(
    calls.map((call) => ({
      type: 'tool-call',
      toolCallId: call.tool_call_id,
      toolName: call.name,
      input: JSON.stringify(call.arguments ?? {}),
    })),
  );
  const result = await sdk.ai.generateText({
    model,
    ...promptOptions(sdk, messages, instructions),
    tools,
    stopWhen: sdk.ai.stepCountIs(1),
  });
  return result.response.messages;
}

/** The SDK messages an app holds after the history's turns; a leading system message is the
 * call's instructions (`sdk.systemOption`: `instructions` in 7, `system` in 6), since the 7
 * line refuses system messages among the messages unless `allowSystemInMessages` is set. */
export async function messagesOf(sdk, given) {
  let history = normalized(given);
  const leading = history[0];
  const instructions =
    leading?.type === 'message' && leading.role === 'system' ? messageOf(sdk, leading).content : undefined;
  if (instructions !== undefined) history = history.slice(1);
  const results = new Map(
    history.filter((i) => i.type === 'tool_result').map((r) => [r.tool_call_id, r]),
  );
  const tools = toolsOf(sdk, history, results);
  const messages = [];
  let calls = [];
  let waiting = []; // tool-produced user content: after the turn's tool message
  const close = async () => {
    if (calls.length) {
      messages.push(...(await runTurn(sdk, messages, calls, tools, instructions)));
    }
    calls = [];
    messages.push(...waiting);
    waiting = [];
  };
  let resultsSeen = false;
  for (const item of history) {
    if (item.type === 'tool_call') {
      if (resultsSeen) await close();
      resultsSeen = false;
      calls.push(item);
    } else if (item.type === 'tool_result') {
      resultsSeen = true;
      if (!calls.some((c) => c.tool_call_id === item.tool_call_id)) {
        calls.push({ tool_call_id: item.tool_call_id, name: item.name, arguments: {} });
      }
    } else if (item.source !== undefined) {
      waiting.push(messageOf(sdk, item));
    } else {
      await close();
      resultsSeen = false;
      messages.push(messageOf(sdk, item));
    }
  }
  await close();
  return { messages, tools, instructions };
}

/** The call's prompt options: the instructions, and the SDK's opt-in for any later system
 * message the history holds. */
export function promptOptions(sdk, messages, instructions) {
  const options = { messages };
  if (instructions !== undefined) options[sdk.systemOption] = instructions;
  if (messages.some((m) => m.role === 'system')) options.allowSystemInMessages = true;
  return options;
}

// --- sending ----------------------------------------------------------------------------------------

export function rawBlobs(value) {
  if (Array.isArray(value)) return value.map(rawBlobs);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'source' && item && typeof item.bytes === 'string') {
      out[key] = { ...rawBlobs(item), bytes: { $bytes: item.bytes } };
    } else {
      out[key] = rawBlobs(item);
    }
  }
  return out;
}

export function payloadOf(api, exchange) {
  const text = exchange.body.toString('utf8').split(`//${FIXTURE_NAME}:`).join('//127.0.0.1:');
  const body = JSON.parse(text);
  if (api !== 'bedrock-converse') return body;
  const found = /^\/model\/([^/]+)\/converse(?:-stream)?(?:\?.*)?$/.exec(exchange.path);
  const params = found ? { modelId: decodeURIComponent(found[1]), ...body } : body;
  return rawBlobs(params);
}

class NoRequest extends Error {}

/** `experimental_download`, the SDK's documented hook for fetching URL media: it downloads what
 * the SDK asks for (`isUrlSupportedByModel` false), as the default does, without the default's
 * refusal of private addresses, since the suite serves its fixture media on 127.0.0.1 (a public
 * URL would be downloaded). */
export function downloadOf(sdk) {
  return (requests) =>
    Promise.all(
      requests.map(async ({ url, isUrlSupportedByModel, abortSignal }) => {
        if (isUrlSupportedByModel) return null;
        const response = await fetch(url, { signal: abortSignal });
        if (!response.ok) {
          throw new sdk.ai.DownloadError({
            url: String(url),
            statusCode: response.status,
            statusText: response.statusText,
          });
        }
        const data = new Uint8Array(await response.arrayBuffer());
        return { data, mediaType: response.headers.get('content-type') ?? undefined };
      }),
    );
}

/** Send the messages for the row; the payload of the first request, or what was raised. */
export async function send(sdk, base, row, { messages, tools, instructions }) {
  const channel = String(++channels);
  captured.set(channel, []);
  if (!served(sdk).includes(row.api)) throw new Error(`this release serves no ${row.api} rows`);
  const [name, create] = PROVIDERS[row.api];
  const make = (model) =>
    create(sdk.packages[name], `${base}/c${channel}`, model, sdk.packages['google-auth-library']);
  const sent = sdk.downloadsToolFiles.includes(row.api) ? namedFixtures(messages) : messages;
  let raised;
  try {
    await sdk.ai.generateText({
      model: make(row.model),
      ...promptOptions(sdk, sent, instructions),
      tools,
      maxRetries: 0,
      experimental_download: downloadOf(sdk),
    });
  } catch (error) {
    raised = error;
  }
  const taken = captured.get(channel);
  captured.delete(channel);
  if (taken.length) return payloadOf(row.api, taken[0]);
  if (raised !== undefined) throw raised;
  throw new NoRequest('generateText returned without sending a request');
}

// --- the protocol ---------------------------------------------------------------------------------

function write(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function answerOf(sdk, id, error) {
  if (sdk.UnsupportedFunctionalityError.isInstance(error)) {
    return { id, refusal: { kind: REFUSAL, message: String(error.message) } };
  }
  const type = String(error?.name || 'Error').replace(/^AI_/, '');
  return { id, error: { type, message: String(error?.message ?? error) } };
}

export async function render(sdk, base, request) {
  const { messages, tools, instructions } = await messagesOf(sdk, request.history);
  const given = request.op === 'render_stored' ? JSON.parse(JSON.stringify(messages)) : messages;
  return send(sdk, base, request.row, { messages: given, tools, instructions });
}

export async function run(sdk) {
  // stdout is the protocol's: whatever the SDK or a provider package logs goes to stderr.
  for (const name of ['log', 'info', 'debug']) console[name] = (...args) => console.error(...args);
  globalThis.fetch = resolvingFetch(globalThis.fetch);
  const base = await startRecorder();
  const unsupported = sdk.unsupported;
  write({
    protocol: 1,
    name: 'ai-sdk',
    version: sdk.version,
    sdk_versions: sdk.versions,
    refusal_kinds: [REFUSAL],
    rows: Object.keys(PROVIDERS),
    unsupported,
    repro: { suffix: '.mjs', comment: '//', run: 'node {file}' },
  });
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      write({ id: '?', error: { type: 'BadRequest', message: `not JSON: ${error.message}` } });
      continue;
    }
    try {
      if (request.op === 'repro') {
        write({ id: request.id, script: sdk.repro(request) });
      } else {
        write({ id: request.id, payload: await render(sdk, base, request) });
      }
    } catch (error) {
      write(answerOf(sdk, request.id, error));
    }
  }
}
