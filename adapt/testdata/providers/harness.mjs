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

// declared is the function declarations of the captured request, n of
// them, in order.
function declared(n, field) {
  const decls = captured?.tools?.[0]?.functionDeclarations;
  if (!Array.isArray(decls) || decls.length !== n) {
    throw new Error(`the request does not carry ${n} function declarations: ` + JSON.stringify(captured?.tools).slice(0, 300));
  }
  return decls.map((d, i) => {
    if (d.name !== `t${i}`) throw new Error(`declaration ${i} is named ${d.name}`);
    if (!(field in d)) throw new Error(`the declaration has no ${field}: ${JSON.stringify(Object.keys(d))}`);
    return d[field];
  });
}

// The request checks take a batch of schemas (one request carrying them
// all, as tools t0, t1, ...); a batch that fails is run again one schema
// at a time, so that an error names its tool.
async function genai(client, field, schemas) {
  captured = undefined;
  await client.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'hi',
    config: { tools: [{ functionDeclarations: schemas.map((s, i) => ({ name: `t${i}`, [field]: structuredClone(s) })) }] },
  });
  return declared(schemas.length, field);
}

const one = (f) => ({ one: f });
const batch = (f) => ({ batch: f });

const checks = {
  openai: {
    'openai.toStrictJsonSchema': one(async (s) => toStrictJsonSchema(s)),
    'agents.mcpToFunctionTool': one(async (s) => {
      const t = mcpToFunctionTool({ name: 'tool', description: '', inputSchema: structuredClone(s) }, { name: 'server' }, true);
      if (t.strict !== true) throw new Error('the tool fell back to non-strict');
      return t.parameters;
    }),
  },
  anthropic: {
    'anthropic.transformJSONSchema': one(async (s) => transformJSONSchema(s)),
    'anthropic.mcpTool': one(async (s) => anthropicMcpTool({ name: 'tool', inputSchema: structuredClone(s) }, {}).input_schema),
  },
  'gemini-schema': {
    'genai.parameters (Gemini API)': batch((ss) => genai(gemini, 'parameters', ss)),
    'genai.parameters (Vertex AI)': batch((ss) => genai(vertex, 'parameters', ss)),
  },
  gemini: {
    'genai.parametersJsonSchema (Gemini API)': batch((ss) => genai(gemini, 'parametersJsonSchema', ss)),
    'genai.parametersJsonSchema (Vertex AI)': batch((ss) => genai(vertex, 'parametersJsonSchema', ss)),
    'genai.mcpToTool (Gemini API)': batch(async (ss) => {
      const client = {
        listTools: async () => ({ tools: ss.map((s, i) => ({ name: `t${i}`, inputSchema: structuredClone(s) })) }),
        callTool: async () => ({ content: [] }),
      };
      captured = undefined;
      await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { tools: [genaiMcpToTool(client)] } });
      return declared(ss.length, 'parametersJsonSchema');
    }),
    'ai-sdk.google': batch(async (ss) => {
      captured = undefined;
      await vercel.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
        tools: ss.map((s, i) => ({ type: 'function', name: `t${i}`, description: '', inputSchema: structuredClone(s) })),
      });
      return declared(ss.length, 'parametersJsonSchema');
    }),
  },
};

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
const millis = {}; // by check: the time it took, for the test's log
const errorOf = (e) => String(e?.message ?? e);
for (const [profile, byCheck] of Object.entries(checks)) {
  const tools = input.tools.filter((t) => t.profile === profile);
  for (const [check, run] of Object.entries(byCheck)) {
    const start = performance.now();
    let outputs;
    if (run.batch) {
      try {
        outputs = await run.batch(tools.map((t) => t.schema));
      } catch {
        outputs = undefined; // one at a time, below
      }
    }
    for (const [i, { name, schema }] of tools.entries()) {
      if (outputs) {
        results.push({ name, profile, check, output: outputs[i] });
        continue;
      }
      try {
        const output = run.batch ? (await run.batch([schema]))[0] : await run.one(schema);
        results.push({ name, profile, check, output });
      } catch (e) {
        results.push({ name, profile, check, error: errorOf(e) });
      }
    }
    millis[check] = Math.round(performance.now() - start);
  }
}
process.stdout.write(JSON.stringify({ results, millis }));
