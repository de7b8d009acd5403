// The AI SDK 7 release line behind the bridge (`node main.mjs`): its packages, its content
// parts (`file` with tagged data), its mock model (`MockLanguageModelV4`).
import * as ai from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { UnsupportedFunctionalityError } from '@ai-sdk/provider';
import * as openai from '@ai-sdk/openai';
import * as anthropic from '@ai-sdk/anthropic';
import * as google from '@ai-sdk/google';
import * as bedrock from '@ai-sdk/amazon-bedrock';
import * as bedrockAnthropic from '@ai-sdk/amazon-bedrock/anthropic';
import * as vertex from '@ai-sdk/google-vertex';
import * as vertexAnthropic from '@ai-sdk/google-vertex/anthropic';
import * as googleAuth from 'google-auth-library';
import * as mistral from '@ai-sdk/mistral';
import * as groq from '@ai-sdk/groq';
import * as xai from '@ai-sdk/xai';
import * as cohere from '@ai-sdk/cohere';
import { run, versionsOf, mockModel } from '../bridge.mjs';
import { repro } from '../repro.mjs';

/** A tool-result content part of this release for a history part. */
function contentPart(part) {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const data =
    part.data !== undefined ? { type: 'data', data: part.data } : { type: 'url', url: new URL(part.url) };
  const named = part.type === 'image' ? {} : { filename: part.identifier };
  return { type: 'file', data, mediaType: part.media_type, ...named };
}

/** A user message's image part of this release. */
function imagePart(data, mediaType) {
  return { type: 'file', data, mediaType };
}

const sdk = {
  ai,
  packages: {
    '@ai-sdk/openai': openai,
    '@ai-sdk/anthropic': anthropic,
    '@ai-sdk/google': google,
    '@ai-sdk/amazon-bedrock': bedrock,
    '@ai-sdk/amazon-bedrock/anthropic': bedrockAnthropic,
    '@ai-sdk/google-vertex': vertex,
    '@ai-sdk/google-vertex/anthropic': vertexAnthropic,
    'google-auth-library': googleAuth,
    '@ai-sdk/mistral': mistral,
    '@ai-sdk/groq': groq,
    '@ai-sdk/xai': xai,
    '@ai-sdk/cohere': cohere,
  },
  UnsupportedFunctionalityError,
  contentPart,
  systemOption: 'instructions',
  contentPartSource: contentPart.toString(),
  imagePart,
  imagePartSource: imagePart.toString(),
  mockModel: (calls) => mockModel(MockLanguageModelV4, calls),
  mockModelName: 'MockLanguageModelV4',
  // Providers that download tool-result files by URL themselves (bridge.mjs `FIXTURE_NAME`):
  // `@ai-sdk/google-vertex` 5's Gemini model (`downloadToolResultFiles`).
  downloadsToolFiles: ['gemini-vertex'],
  unsupported: {
    xai: '@ai-sdk/xai 5 sends the xAI Responses API only; the matrix\'s xai api is Chat Completions',
  },
  ...versionsOf(new URL('./', import.meta.url)),
};
sdk.repro = (request) => repro(sdk, request);

await run(sdk);
