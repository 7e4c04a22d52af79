package mcpcapture

import (
	// encoding/json: Raw hands text on as json.RawMessage; nothing is
	// read by it.
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"sync"

	"github.com/structkit/structkit/jsonvalue"
	"github.com/structkit/structkit/structconv"
)

// On the newline-delimited transports the result of a tools/call is
// captured below the SDK's reader (in guardReader), before the SDK reads
// the frame: the result's structuredContent and its content blocks are
// kept aside, as slices of the frame the connection read, and
// the SDK is handed a stub, the result without them, whose _meta entry is
// a reference to what was kept. The SDK then decodes a few bytes instead
// of the whole result (its decoding of a tree of small numbers costs some
// forty times their bytes), the result's text is never copied into a
// JSON string, and a literal the SDK cannot decode (1e400) no longer
// fails the call. Take resolves the reference.

// refPrefix starts the value of a _meta entry that refers to a kept
// result, followed by its number.
const refPrefix = "kept:"

// maxKept and maxKeptBytes bound the results kept and not yet taken (a
// result whose call was cancelled as it arrived, or a tools/call made on
// the session directly, is never taken): beyond either the oldest is
// dropped, and Take reports it Lost.
const (
	maxKept      = 1024
	maxKeptBytes = 256 << 20
)

// kept holds the results captured below the SDK until Take.
type kept struct {
	mu    sync.Mutex
	next  uint64
	byRef map[uint64]keptResult
	order []uint64 // refs in the order kept, some perhaps taken
	bytes int      // of the frames kept
}

type keptResult struct {
	raw  Raw
	size int // of the frame it holds
}

// reserve returns the reference of a result about to be kept.
func (k *kept) reserve() uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.next++
	return k.next
}

func (k *kept) put(ref uint64, raw Raw, size int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byRef == nil {
		k.byRef = map[uint64]keptResult{}
	}
	k.byRef[ref] = keptResult{raw, size}
	k.bytes += size
	k.order = append(k.order, ref)
	for len(k.order) > 1 && (len(k.byRef) > maxKept || k.bytes > maxKeptBytes) {
		if old, ok := k.byRef[k.order[0]]; ok {
			k.bytes -= old.size
			delete(k.byRef, k.order[0])
		}
		k.order = k.order[1:]
	}
	if len(k.order) > 4*maxKept { // taken refs pile up in order
		live := k.order[:0]
		for _, r := range k.order {
			if _, ok := k.byRef[r]; ok {
				live = append(live, r)
			}
		}
		k.order = live
	}
}

// take returns the result kept under ref; Lost when it was dropped.
func (k *kept) take(ref uint64) Raw {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.byRef[ref]
	if !ok {
		return Raw{Lost: true}
	}
	delete(k.byRef, ref)
	k.bytes -= r.size
	return r.raw
}

// The verdicts of captureFrame on a frame.
type verdict int

const (
	// notRead: captureFrame stopped before the end of the frame (a
	// request, an error response, what the token layer does not read):
	// its depth is not known.
	notRead verdict = iota
	// shallow: read whole, within SDKMaxDepth, not captured.
	shallow
	// deep: nested beyond SDKMaxDepth, which the SDK would die on.
	deep
	// captured: the result is kept, the stub is handed on.
	captured
)

// sdkDepth reads a frame as the SDK does its nesting: one level beyond
// SDKMaxDepth is an error of kind ErrDepth.
var sdkDepth = jsonvalue.Options{MaxDepth: SDKMaxDepth, MaxDigits: math.MaxInt32, AllowDuplicateNames: true}

// captureFrame returns the frame the SDK is handed in place of frame, a
// JSON-RPC message, when it is the response to a pending tools/call with
// a result this can capture (the id is then taken from p; verdict
// captured); otherwise frame is left to the connection above (which
// guards and annotates what it can), and the verdict says what the one
// reading of the frame found of its depth, so that it is not read again
// for it. frame must not be modified afterwards: what is kept are slices
// of it.
func (c *Capture) captureFrame(frame []byte, p *pending) (stub []byte, v verdict) {
	d := sdkDepth.NewDecoder(view(frame))
	if k, err := d.Next(); err != nil || k != '{' {
		return nil, depthOf(err)
	}
	var id, result []byte
	resultAt := 0
	done, err := d.EachMember(func(m jsonvalue.Member) bool {
		switch m.Name {
		case memberID:
			id = frame[m.Start:m.End]
		case "result":
			result, resultAt = frame[m.Start:m.End], m.Start
		case "method", "error":
			return false
		}
		return true
	})
	if err != nil {
		return nil, depthOf(err)
	}
	if !done {
		return nil, notRead
	}
	if k, err := d.Next(); err != nil || k != 0 {
		return nil, depthOf(err)
	}
	if id == nil || result == nil {
		return nil, shallow
	}
	key := rawIDKey(id)
	if p.peek(key) != kindCall {
		return nil, shallow
	}
	ref := c.kept.reserve()
	entry, _ := jsonvalue.AppendString(nil, c.key)
	entry, _ = jsonvalue.AppendString(append(entry, ':'), refPrefix+strconv.FormatUint(ref, 10))
	raw, stubResult, ok := c.stubResult(frame[resultAt:resultAt+len(result)], entry)
	if !ok {
		return nil, shallow
	}
	c.kept.put(ref, raw, len(frame))
	p.take(key)
	stub = make([]byte, 0, len(stubResult)+len(id)+32)
	stub = append(stub, `{"jsonrpc":"2.0","id":`...)
	stub = append(stub, id...)
	stub = append(stub, `,"result":`...)
	stub = append(stub, stubResult...)
	return append(stub, '}'), captured
}

// depthOf is the verdict of a reading that err stopped (nil: a frame that
// is not an object, read to its first token only).
func depthOf(err error) verdict {
	var se *structconv.Error
	if errors.As(err, &se) && se.Code == structconv.CodeDepth {
		return deep
	}
	return notRead
}

// stubResult returns what is kept of a result and the result without
// it, entry first in its _meta; ok is false when the result is not an
// object whose members this can tell apart (a repeated _meta, a name with
// escapes, a _meta that is neither an object nor null).
func (c *Capture) stubResult(result, entry []byte) (raw Raw, stub []byte, ok bool) {
	m, ok := scanObject(result)
	if !ok {
		return Raw{}, nil, false
	}
	if m.meta >= 0 && result[m.meta] != '{' && !isNull(m.metaValue) {
		return Raw{}, nil, false
	}
	stub = make([]byte, 0, 64+len(entry)+len(m.metaValue))
	stub = append(append(stub, `{"_meta":{`...), entry...)
	if m.meta >= 0 && result[m.meta] == '{' && !m.metaEmpty {
		stub = append(append(stub, ','), m.metaValue[1:]...) // its members and '}'
	} else {
		stub = append(stub, '}')
	}
	if m.structured != nil && !isNull(m.structured) {
		raw.Structured = json.RawMessage(m.structured)
	}
	if m.content != nil {
		// Plain text blocks too, which the SDK decodes without loss:
		// what is kept is read once, and not decoded and re-encoded.
		blocks, ok := elements(m.content)
		if !ok {
			return Raw{}, nil, false
		}
		raw.Content = blocks
		stub = append(stub, `,"content":[]`...)
	}
	for _, mem := range m.others {
		stub = append(append(append(append(stub, ','), mem.name...), ':'), mem.value...)
	}
	return raw, append(stub, '}'), true
}

// elements returns the elements of a JSON array, as slices of it.
func elements(arr []byte) ([]json.RawMessage, bool) {
	d := jsonvalue.Loose.NewDecoder(view(arr))
	if k, err := d.Next(); err != nil || k != '[' {
		return nil, false
	}
	var out []json.RawMessage
	for {
		k, err := d.Next()
		if err != nil {
			return nil, false
		}
		if k == ']' {
			return out, true
		}
		start := d.Start()
		end, err := d.SkipValue()
		if err != nil {
			return nil, false
		}
		out = append(out, json.RawMessage(arr[start:end]))
	}
}
