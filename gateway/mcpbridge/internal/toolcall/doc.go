// Package toolcall holds the steps of an MCP tool call that do not depend
// on an MCP SDK, shared by the adapters of package mcpbridge (the go-sdk)
// and package mcpbridge/mcpgo (github.com/mark3labs/mcp-go): reading a
// call's arguments from their raw bytes, checking them against the
// compiled input schema, repairing them under the policy, rendering the
// problems a model can act on, preparing a client's arguments, and
// converting results exactly. Each adapter turns what these steps return
// into its SDK's types.
//
// It sits above the codec (it imports coerce and structconv, which the
// engine under the module's internal/ may not) and below the two MCP
// faces: only they import it.
package toolcall
