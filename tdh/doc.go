// Package tdh decodes ETW event payloads the way Windows' Trace Data
// Helper (TDH) does, without Windows.
//
// It is the engine shared by the schema sources: instrumentation
// manifests (package manifest), MOF classes and the built-in kernel
// classes (package mof) and TraceLogging self-describing events (package
// tracelogging) all compile into the same [Event] schema, with TDH's
// in-type and out-type numbering.
//
// A [Registry] holds schemas keyed by provider GUID, event id and version.
// A [Decoder] lays a payload out by its schema into a flat list of
// [Value]s without converting anything, so decoding allocates nothing;
// rendering (AppendText, AppendJSON, FormatMessage) turns values into text
// by the TDH out-type rules.
package tdh
