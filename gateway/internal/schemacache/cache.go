// Package schemacache keeps compiled schemas by the exact bytes of their
// text, so that identical schemas (the same tool schema published by many
// tools or servers) are compiled, and held, once. It is bounded: by the
// number of entries and by the bytes of schema text they hold; past
// either bound the oldest entries are dropped (compiled again when next
// needed, never wrong).
package schemacache

import (
	"bytes"
	"crypto/sha256"
	"sync"
	"sync/atomic"
)

// Default bounds of New(0, 0).
const (
	DefaultMaxEntries = 4096
	DefaultMaxBytes   = 64 << 20
)

// Cache maps schema text to its compiled value V. It is safe for
// concurrent use; the zero value is not usable (see New).
type Cache[V any] struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*entry[V]
	order   [][sha256.Size]byte // oldest first
	bytes   int

	compiles atomic.Int64
}

type entry[V any] struct {
	src  []byte
	once sync.Once
	val  V
	err  error
}

// New returns a cache of at most maxEntries entries holding at most
// maxBytes of schema text; 0 means DefaultMaxEntries, DefaultMaxBytes.
func New[V any](maxEntries, maxBytes int) *Cache[V] {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Cache[V]{maxEntries: maxEntries, maxBytes: maxBytes, entries: map[[sha256.Size]byte]*entry[V]{}}
}

// Get returns the value compiled from src, compiling it with compile if
// the cache does not hold it (concurrent Gets of the same text compile it
// once). canon is the cache's copy of the text, equal to src: holding it
// instead of src lets identical schemas share their bytes. A text larger
// than the cache's byte bound is compiled and not kept.
func (c *Cache[V]) Get(src []byte, compile func([]byte) (V, error)) (canon []byte, v V, err error) {
	if c == nil {
		c.count()
		v, err = compile(src)
		return src, v, err
	}
	key := sha256.Sum256(src)
	c.mu.Lock()
	e := c.entries[key]
	if e != nil && !bytes.Equal(e.src, src) {
		e = nil // a collision: compile it apart
		c.mu.Unlock()
		c.count()
		v, err = compile(src)
		return src, v, err
	}
	if e == nil {
		e = &entry[V]{src: src}
		if len(src) <= c.maxBytes {
			c.add(key, e)
		}
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.count()
		e.val, e.err = compile(e.src)
	})
	return e.src, e.val, e.err
}

// add stores e, dropping the oldest entries past the bounds; c.mu is held.
func (c *Cache[V]) add(key [sha256.Size]byte, e *entry[V]) {
	for len(c.order) > 0 && (len(c.order) >= c.maxEntries || c.bytes+len(e.src) > c.maxBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		if o := c.entries[old]; o != nil {
			c.bytes -= len(o.src)
			delete(c.entries, old)
		}
	}
	c.entries[key] = e
	c.order = append(c.order, key)
	c.bytes += len(e.src)
}

// count counts a compilation.
func (c *Cache[V]) count() {
	if c != nil {
		c.compiles.Add(1)
	}
}

// Compiles returns how many times the cache has compiled a schema: the
// hook tests count compilations with.
func (c *Cache[V]) Compiles() int64 { return c.compiles.Load() }

// Len returns the number of entries and the bytes of text they hold.
func (c *Cache[V]) Len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}

// WithCache, set by package mcpbridge, returns opts (a
// mcpbridge.ClientOptions) with cache (a *Cache[*structconv.Schema]) for the
// Client's compiled schemas, compiled on first use (a call, Client.Tool):
// how package bridge shares one bounded cache across its upstreams, and
// holds compiled schemas for the tools in use only, without an exported
// name for it.
var WithCache func(opts, cache any) any
