package schemacache

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func TestSharedOnce(t *testing.T) {
	c := New[string](0, 0)
	calls := 0
	compile := func(b []byte) (string, error) { calls++; return "v" + string(b), nil }
	a := []byte(`{"type":"object"}`)
	b := []byte(`{"type":"object"}`)
	ca, va, _ := c.Get(a, compile)
	cb, vb, _ := c.Get(b, compile)
	if calls != 1 || c.Compiles() != 1 || va != vb {
		t.Fatalf("compiled %d times (counted %d), values %q %q", calls, c.Compiles(), va, vb)
	}
	if &ca[0] != &cb[0] || &ca[0] != &a[0] {
		t.Error("identical texts do not share the first one's bytes")
	}
	if _, _, _ = c.Get([]byte(`{}`), compile); calls != 2 {
		t.Errorf("a different text: %d compilations, want 2", calls)
	}
}

func TestErrorsCached(t *testing.T) {
	c := New[int](0, 0)
	boom := errors.New("boom")
	for range 3 {
		if _, _, err := c.Get([]byte("x"), func([]byte) (int, error) { return 0, boom }); err != boom {
			t.Fatalf("err %v", err)
		}
	}
	if c.Compiles() != 1 {
		t.Errorf("%d compilations of a failing text, want 1", c.Compiles())
	}
}

func TestBounded(t *testing.T) {
	c := New[int](3, 10)
	compile := func(b []byte) (int, error) { return len(b), nil }
	for i := range 10 {
		c.Get(fmt.Appendf(nil, "s%d", i), compile)
		if n, b := c.Len(); n > 3 || b > 10 {
			t.Fatalf("after %d: %d entries, %d bytes", i, n, b)
		}
	}
	c.Get([]byte("s9"), compile) // still held: no compilation
	if c.Compiles() != 10 {
		t.Errorf("%d compilations, want 10", c.Compiles())
	}
	c.Get([]byte("s0"), compile) // dropped: compiled again
	if c.Compiles() != 11 {
		t.Errorf("%d compilations, want 11", c.Compiles())
	}
	big := make([]byte, 11)
	c.Get(big, compile)
	c.Get(big, compile)
	if n, b := c.Len(); c.Compiles() != 13 || n > 3 || b > 10 {
		t.Errorf("a text over the byte bound: %d compilations, %d entries, %d bytes", c.Compiles(), n, b)
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int](0, 0)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range 50 {
				c.Get(fmt.Appendf(nil, "s%d", i%5), func(b []byte) (int, error) { return len(b), nil })
			}
		})
	}
	wg.Wait()
	if c.Compiles() != 5 {
		t.Errorf("%d compilations, want 5", c.Compiles())
	}
}

func TestNil(t *testing.T) {
	var c *Cache[int]
	if _, v, err := c.Get([]byte("ab"), func(b []byte) (int, error) { return len(b), nil }); v != 2 || err != nil {
		t.Errorf("nil cache: %v %v", v, err)
	}
}
