// The provider check's harness (run by adapt/providers_test.go).
//
// stdin: {"tools": [{"name", "profile", "schema"}]}, the adapted schemas.
// stdout: {"results": [{"name", "profile", "check", "output"} or {..., "error"}]}:
// each schema as the provider's own SDK code leaves it, for every check of
// its profile. The Go test compares output with schema.
//
// Every function run is the SDK's own, imported from the installed package:
//  - openai: toStrictJsonSchema from openai/lib/transform (exported by the
//    package's "./lib/*" subpath; the strict transform behind the zod and
//    standard-schema helpers).
//  - openai: mcpToFunctionTool from @openai/agents-core (the MCP tool to
//    function tool conversion, convertSchemasToStrict true: it runs
//    tool(), which runs prepareOpenAIStrictToolSchema); the tool must come
//    back strict, not fall back to a non-strict one.
//  - anthropic: transformJSONSchema from
//    @anthropic-ai/sdk/lib/transform-json-schema (internal, resolved by its
//    file path through the package's "./lib/*" subpath), and mcpTool from
//    @anthropic-ai/sdk/helpers/beta/mcp (the MCP tool to Claude tool
//    conversion of the tool runner: it writes the input_schema it sends).
//  - gemini-schema, gemini: @google/genai does not export processJsonSchema
//    (a private function of its bundle), so the check goes through the
//    public path that runs it: models.generateContent with the schema as a
//    FunctionDeclaration's parameters (tTool runs processJsonSchema) or
//    parametersJsonSchema, with fetch replaced to capture the request body,
//    for the Gemini API and for Vertex AI (toolToMldev, toolToVertex).
//  - gemini: @google/genai's mcpToTool (an MCP client's tools as a
//    CallableTool) in the same request, as a Gemini client of an MCP
//    server sends them.
//  - gemini: @ai-sdk/google, the same way (createGoogle with a fetch that
//    captures; doGenerate with a function tool). Version 4 no longer has
//    convertJSONSchemaToOpenAPISchema: it sends inputSchema as
//    parametersJsonSchema, and the check holds it to that.
// No request leaves the process.
import { toStrictJsonSchema } from 'openai/lib/transform';
import { mcpToFunctionTool } from '@openai/agents-core';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { mcpTool as anthropicMcpTool } from '@anthropic-ai/sdk/helpers/beta/mcp';
import { GoogleGenAI, mcpToTool as genaiMcpToTool } from '@google/genai';
import { createGoogle } from '@ai-sdk/google';

let captured;
const fakeFetch = async (_url, init) => {
  captured = JSON.parse(init.body);
  return new Response(
    JSON.stringify({ candidates: [{ content: { parts: [{ text: 'ok' }], role: 'model' }, finishReason: 'STOP' }] }),
    { status: 200, headers: { 'content-type': 'application/json' } },
  );
};
globalThis.fetch = fakeFetch;

const gemini = new GoogleGenAI({ apiKey: 'not-a-key' });
const vertex = new GoogleGenAI({ vertexai: true, apiKey: 'not-a-key' });
const vercel = createGoogle({ apiKey: 'not-a-key', fetch: fakeFetch })('gemini-2.5-flash');

// declared is the one function declaration of the captured request.
function declared() {
  const decls = captured?.tools?.[0]?.functionDeclarations;
  if (!Array.isArray(decls) || decls.length !== 1) {
    throw new Error('the request does not carry one function declaration: ' + JSON.stringify(captured?.tools));
  }
  return decls[0];
}

async function genai(client, field, schema) {
  captured = undefined;
  await client.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'hi',
    config: { tools: [{ functionDeclarations: [{ name: 'tool', [field]: structuredClone(schema) }] }] },
  });
  const d = declared();
  if (!(field in d)) throw new Error(`the declaration has no ${field}: ${JSON.stringify(Object.keys(d))}`);
  return d[field];
}

const checks = {
  openai: {
    'openai.toStrictJsonSchema': async (s) => toStrictJsonSchema(s),
    'agents.mcpToFunctionTool': async (s) => {
      const t = mcpToFunctionTool({ name: 'tool', description: '', inputSchema: structuredClone(s) }, { name: 'server' }, true);
      if (t.strict !== true) throw new Error('the tool fell back to non-strict');
      return t.parameters;
    },
  },
  anthropic: {
    'anthropic.transformJSONSchema': async (s) => transformJSONSchema(s),
    'anthropic.mcpTool': async (s) => anthropicMcpTool({ name: 'tool', inputSchema: structuredClone(s) }, {}).input_schema,
  },
  'gemini-schema': {
    'genai.parameters (Gemini API)': (s) => genai(gemini, 'parameters', s),
    'genai.parameters (Vertex AI)': (s) => genai(vertex, 'parameters', s),
  },
  gemini: {
    'genai.parametersJsonSchema (Gemini API)': (s) => genai(gemini, 'parametersJsonSchema', s),
    'genai.parametersJsonSchema (Vertex AI)': (s) => genai(vertex, 'parametersJsonSchema', s),
    'genai.mcpToTool (Gemini API)': async (s) => {
      const client = { listTools: async () => ({ tools: [{ name: 'tool', inputSchema: structuredClone(s) }] }), callTool: async () => ({ content: [] }) };
      captured = undefined;
      await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: [genaiMcpToTool(client)] } });
      return declared().parametersJsonSchema;
    },
    'ai-sdk.google': async (s) => {
      captured = undefined;
      await vercel.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        tools: [{ type: 'function', name: 'tool', description: '', inputSchema: structuredClone(s) }],
      });
      const d = declared();
      if (!('parametersJsonSchema' in d)) throw new Error(`the declaration has no parametersJsonSchema: ${JSON.stringify(Object.keys(d))}`);
      return d.parametersJsonSchema;
    },
  },
};

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
const millis = {}; // by check: the time it took, for the test's log
for (const { name, profile, schema } of input.tools) {
  for (const [check, run] of Object.entries(checks[profile] ?? {})) {
    const start = performance.now();
    try {
      results.push({ name, profile, check, output: await run(schema) });
    } catch (e) {
      results.push({ name, profile, check, error: String(e?.message ?? e) });
    }
    millis[check] = (millis[check] ?? 0) + performance.now() - start;
  }
}
for (const k of Object.keys(millis)) millis[k] = Math.round(millis[k]);
process.stdout.write(JSON.stringify({ results, millis }));
