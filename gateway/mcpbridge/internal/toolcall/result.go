package toolcall

import (
	"math"
	// encoding/json: an SDK hands us results as json.RawMessage and
	// decoded values (float64, json.Number); we read no JSON with it.
	"encoding/json"
	"slices"
	"strconv"
	"unsafe"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// StructuredPath prefixes the Path of report entries about a result's
// structured content.
const StructuredPath = "/structuredContent"

// ResultLimits are the token layer's limits on a result's text: a
// client's MaxDepth and MaxNumberDigits, duplicate members left to the
// caller (the text is handed on as written).
func ResultLimits(maxDepth, maxDigits int) jsonvalue.Options {
	return jsonvalue.Options{MaxDepth: maxDepth, MaxDigits: maxDigits, AllowDuplicateNames: true}
}

// RawContent returns a result's content blocks as the server wrote them,
// only compacted, read under limits (an error names the block's path).
func RawContent(raw []json.RawMessage, limits jsonvalue.Options) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(raw))
	for i, b := range raw {
		// Handed on as the server wrote them, only compacted: read under
		// the token layer's grammar, the rest is the caller's.
		cb, err := limits.Compact(nil, string(b))
		if err != nil {
			return nil, Located("/content/"+strconv.Itoa(i), err)
		}
		out[i] = cb
	}
	return out, nil
}

// MarshalContent writes content blocks an SDK decoded (plain text blocks
// it decodes without loss) as JSON objects.
func MarshalContent[C any](blocks []C) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(blocks))
	for i, ct := range blocks {
		b, err := jsonvalue.Marshal(ct)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// RawStructured reads a result's raw structured content under limits:
// its compacted text (raw itself when compact already) and, unless
// jsonOnly, its conversion with the tool's output schema (out, nil for
// none), whose changes are added to rep under StructuredPath.
func RawStructured(raw []byte, out *structconv.Schema, limits jsonvalue.Options, jsonOnly bool, rep *coerce.Report) (json.RawMessage, *structpb.Value, error) {
	sj, err := compacted(raw, limits)
	if err != nil {
		return nil, nil, Located(StructuredPath, err)
	}
	if jsonOnly {
		return sj, nil, nil
	}
	var urep coerce.Report
	v := &structpb.Value{}
	if err := (structconv.UnmarshalOptions{Schema: out, Report: &urep, MaxDepth: limits.MaxDepth,
		MaxNumberDigits: limits.MaxDigits}).Unmarshal(sj, v); err != nil {
		return nil, nil, Located(StructuredPath, err)
	}
	AppendChanges(rep, urep.Changes, StructuredPath)
	return sj, v, nil
}

// DecodedStructured converts structured content an SDK decoded with
// encoding/json semantics (float64 numbers) with the tool's output
// schema, adding the changes to rep under StructuredPath, and flags the
// whole numbers beyond ±2^53, whose digits the decoding may have lost,
// "precision-unsafe".
func DecodedStructured(sc any, out *structconv.Schema, rep *coerce.Report) (*structpb.Value, error) {
	var urep coerce.Report
	v := &structpb.Value{}
	if err := (structconv.GoOptions{Schema: out, Report: &urep}).FromGo(sc, v); err != nil {
		return nil, err
	}
	// Flagged below wherever they stand, not only at integer locations.
	urep.Changes = slices.DeleteFunc(urep.Changes, func(c coerce.Change) bool { return c.Rule == coerce.RulePrecisionUnsafe })
	flagLostDigits(&urep, sc, nil)
	AppendChanges(rep, urep.Changes, StructuredPath)
	return v, nil
}

// compacted returns text compacted, read under the limits: text itself
// when it is compact already (as servers write it: no copy), else a
// compact copy.
func compacted(text []byte, o jsonvalue.Options) ([]byte, error) {
	if len(text) == 0 {
		return o.Compact(nil, "")
	}
	// Read in place: text is not modified while d reads it.
	src := unsafe.String(&text[0], len(text))
	d := o.NewDecoder(src)
	end := 0
	for {
		k, err := d.Next()
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		// Between tokens, compact text has only the separators.
		for _, c := range text[end:d.Start()] {
			if c != ',' && c != ':' {
				return o.Compact(make([]byte, 0, len(text)), src)
			}
		}
		end = d.End()
	}
	if end != len(text) {
		return o.Compact(make([]byte, 0, len(text)), src)
	}
	return text, nil
}

// Exact reports whether a result not captured raw is exact all the same:
// its decoded structured content holds no number and its content blocks
// no number literal, which the SDK's decoding could have changed.
func Exact(structured any, content []json.RawMessage) bool {
	return !hasNumber(structured) && !slices.ContainsFunc(content, hasNumberLiteral)
}

// hasNumber reports whether a decoded JSON tree holds a number.
func hasNumber(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if hasNumber(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(t, hasNumber)
	case float64, json.Number:
		return true
	}
	return false
}

// hasNumberLiteral reports whether JSON text holds a number literal (or
// is not JSON the token layer reads, which may hide one).
func hasNumberLiteral(b json.RawMessage) bool {
	d := jsonvalue.Loose.NewDecoder(string(b))
	for {
		k, err := d.Next()
		switch {
		case err != nil, k == '0':
			return true
		case k == 0:
			return false
		}
	}
}

// flagLostDigits flags whole float64 values beyond ±2^53 in a decoded
// tree: the SDK decoded them from JSON and may have dropped digits.
func flagLostDigits(rep *coerce.Report, v any, ptr []byte) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			flagLostDigits(rep, t[k], jsonvalue.AppendToken(ptr, k))
		}
	case []any:
		for i, e := range t {
			flagLostDigits(rep, e, jsonvalue.AppendIndex(ptr, i))
		}
	case float64:
		if math.Abs(t) >= 1<<53 && !math.IsInf(t, 0) && t == math.Trunc(t) { // whole and beyond 2^53; 2^53 itself may be a rounded 2^53+1
			lit := strconv.FormatFloat(t, 'f', 0, 64) // the double's exact digits
			rep.Add(coerce.Change{Path: string(ptr), Rule: coerce.RulePrecisionUnsafe, From: lit, To: lit})
		}
	}
}
