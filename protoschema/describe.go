package protoschema

import (
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// describe returns the description of a descriptor: its comments (unless
// NoDescriptions), then the extra lines.
func (g *gen) describe(d protoreflect.Descriptor, extra []string) string {
	var parts []string
	if !g.o.NoDescriptions {
		if c := comment(d); c != "" {
			parts = append(parts, c)
		}
	}
	parts = append(parts, extra...)
	s := strings.Join(parts, "\n")
	if len(s) > maxDescription {
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// comment returns the leading (else trailing) comment of a descriptor,
// trimmed, or "".
func comment(d protoreflect.Descriptor) string {
	f := d.ParentFile()
	if f == nil {
		return ""
	}
	loc := f.SourceLocations().ByDescriptor(d)
	c := loc.LeadingComments
	if strings.TrimSpace(c) == "" {
		c = loc.TrailingComments
	}
	lines := strings.Split(c, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
