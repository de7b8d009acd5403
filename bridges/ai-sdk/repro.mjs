// Reproducers: a standalone `.mjs` script for one cell that needs only Node and the release's
// packages (`npm install ai@X @ai-sdk/<provider>@Y`). It holds the history, rebuilds the SDK's
// messages with the bridge's own functions (their source is copied into the script, so the
// script does exactly what the bridge did), sends them with `generateText` to a `node:http`
// server on 127.0.0.1 that records the request and answers 400, and prints the request body.
// URL media is served by the script itself on 127.0.0.1.

import {
  AWS,
  GCP,
  KEY,
  PROVIDERS,
  FIXTURE_NAME,
  downloadOf,
  isText,
  messageOf,
  messagesOf,
  mockModel,
  namedFixtures,
  normalized,
  packageOf,
  payloadOf,
  promptOptions,
  rawBlobs,
  resolvingFetch,
  runTurn,
  standardBase64,
  toolOutput,
  toolsOf,
  userPart,
  vertexAuth,
} from './bridge.mjs';

const COPIED = [
  isText,
  standardBase64,
  normalized,
  userPart,
  messageOf,
  toolOutput,
  toolsOf,
  runTurn,
  messagesOf,
  promptOptions,
  mockModel,
  rawBlobs,
  payloadOf,
  downloadOf,
  vertexAuth,
  resolvingFetch,
  namedFixtures,
];

/** The Vertex providers authenticate through google-auth-library (`vertexAuth`). */
const AUTH = 'google-auth-library';
const VERTEX = ['anthropic-vertex', 'gemini-vertex'];

const STAND_IN = 'http://conformance.media';

/** The history with every fixture URL's origin replaced by a stand-in the script swaps for its
 * own server, and the bytes it serves there (path with query -> media type, base64). */
function standIns(history, media) {
  let text = JSON.stringify(history);
  const served = {};
  for (const [url, found] of Object.entries(media ?? {})) {
    const parsed = new URL(url);
    served[parsed.pathname + parsed.search] = [found.media_type, found.data];
    text = text.split(parsed.origin).join(STAND_IN);
  }
  return { text, served };
}

export function repro(sdk, request) {
  const { row, op } = request;
  if (sdk.unsupported[row.api] !== undefined) {
    throw new Error(`AI SDK ${sdk.version}: ${sdk.unsupported[row.api]}`);
  }
  const [name, create] = PROVIDERS[row.api];
  const { text, served } = standIns(request.history, request.media);
  const vertex = VERTEX.includes(row.api);
  const needed = [packageOf(name), ...(vertex ? [AUTH] : []), '@ai-sdk/provider', 'ai'];
  const versions = needed.map((n) => `${n}@${sdk.versions[n]}`);
  return `// AI SDK ${sdk.version}, ${row.api} request for ${row.id}: what generateText sends for this
// history (${op === 'render_stored' ? 'after storing the messages as JSON' : 'as the tool loop left the messages'}).
//
// Needs Node ${sdk.versions.node.split('.')[0]}+ and: npm install ${versions.join(' ')} zod
// A node:http server on 127.0.0.1 records the request and answers 400, so nothing leaves the
// machine; the request body is printed as JSON. URL media is served by this script too.
// The tool turn runs through generateText's own loop: MockLanguageModel (from ai/test) asks for
// the history's tool calls, and real tools return the history's results (toModelOutput).

import http from 'node:http';
import { Buffer } from 'node:buffer';
import * as ai from 'ai';
import { ${sdk.mockModelName} } from 'ai/test';
import * as provider from '${name}';
${vertex ? `import * as auth from '${AUTH}';\n` : ''}
const KEY = ${JSON.stringify(KEY)};
const AWS = ${JSON.stringify(AWS)};
const GCP = ${JSON.stringify(GCP)};
const FIXTURE_NAME = ${JSON.stringify(FIXTURE_NAME)};
const NAMED = ${sdk.downloadsToolFiles.includes(row.api)};
const API = ${JSON.stringify(row.api)};
const MODEL = ${JSON.stringify(row.model)};
const STORED = ${op === 'render_stored'};
const HISTORY = ${JSON.stringify(text)};
const MEDIA = ${JSON.stringify(served)};

const create = ${create.toString()};

${sdk.contentPartSource}

${sdk.imagePartSource}

const sdk = {
  ai,
  contentPart,
  imagePart,
  systemOption: ${JSON.stringify(sdk.systemOption)},
  mockModel: (calls) => mockModel(${sdk.mockModelName}, calls),
};

${COPIED.map((f) => f.toString()).join('\n\n')}

const captured = [];
const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const found = MEDIA[request.url];
    if (request.method === 'GET') {
      response.writeHead(found ? 200 : 404, { 'content-type': found ? found[0] : 'text/plain' });
      response.end(found ? Buffer.from(found[1], 'base64') : 'not found');
      return;
    }
    captured.push({ path: request.url, body: Buffer.concat(chunks) });
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'recorded, not answered', type: 'invalid_request' } }));
  });
});
if (NAMED) globalThis.fetch = resolvingFetch(globalThis.fetch);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = \`http://127.0.0.1:\${server.address().port}\`;
const history = JSON.parse(HISTORY.split(${JSON.stringify(STAND_IN)}).join(origin));
const { messages, tools, instructions } = await messagesOf(sdk, history);
const stored = STORED ? JSON.parse(JSON.stringify(messages)) : messages;
const given = NAMED ? namedFixtures(stored) : stored;
try {
  await ai.generateText({
    model: create(provider, origin, MODEL${vertex ? ', auth' : ''}),
    ...promptOptions(sdk, given, instructions),
    tools,
    maxRetries: 0,
    experimental_download: downloadOf(sdk),
  });
} catch (error) {
  if (!captured.length) {
    console.log('raised before sending:', error?.name ?? typeof error);
    console.log(error?.message ?? String(error));
  }
}
if (captured.length) {
  console.log('POST', captured[0].path);
  console.log(JSON.stringify(payloadOf(API, captured[0]), null, 2));
}
server.close();
`;
}
