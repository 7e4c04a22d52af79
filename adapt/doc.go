// Package adapt adapts a tool's JSON Schema to what a model provider's
// function calling accepts (Adapt, with a Profile: OpenAI, Anthropic,
// Gemini, Vertex AI), with a Report of every change and what was lost, and
// maps the model's answer back to the arguments the tool's own schema asks
// for, exactly, in one pass of the codec (RestoreOptions), validating
// against the original schema. For every x valid under the original,
// Forward(x) is valid under the adapted schema and restores to x byte for
// byte.
//
// The guide docs/profiles.md of the repository says what each profile takes
// and what changes.
//
// Options follow the conventions said once in package
// [github.com/structkit/structkit/structconv].
package adapt
