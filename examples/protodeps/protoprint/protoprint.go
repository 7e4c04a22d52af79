// Package protoprint prints a file descriptor as .proto source: syntax,
// package, imports, go_package, messages (fields, oneofs, maps, nested
// types, extension ranges, reserved), enums and extensions — what another
// file needs to import it and encode its options. Comments, services and
// the options of elements (but packed and json_name) are left out.
// Editions files are refused.
package protoprint

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// File prints fd.
func File(fd protoreflect.FileDescriptor) (string, error) {
	p := &printer{file: fd}
	switch fd.Syntax() {
	case protoreflect.Proto2:
		p.line(0, `syntax = "proto2";`)
	case protoreflect.Proto3:
		p.line(0, `syntax = "proto3";`)
	default:
		return "", fmt.Errorf("%s: editions files are not supported", fd.Path())
	}
	p.line(0, "")
	p.line(0, "// Written by examples/protodeps from the descriptor its Go package registers.")
	p.line(0, "")
	p.line(0, "package "+string(fd.Package())+";")
	p.line(0, "")
	imports := fd.Imports()
	for i := 0; i < imports.Len(); i++ {
		imp := imports.Get(i)
		kw := "import "
		if imp.IsPublic {
			kw = "import public "
		}
		p.line(0, kw+strconv.Quote(imp.Path())+";")
	}
	if imports.Len() > 0 {
		p.line(0, "")
	}
	if opts, ok := fd.Options().(*descriptorpb.FileOptions); ok && opts.GetGoPackage() != "" {
		p.line(0, "option go_package = "+strconv.Quote(opts.GetGoPackage())+";")
		p.line(0, "")
	}
	p.enums(0, fd.Enums())
	p.messages(0, fd.Messages())
	p.extensions(0, fd.Extensions())
	return strings.TrimRight(p.b.String(), "\n") + "\n", nil
}

type printer struct {
	file protoreflect.FileDescriptor
	b    strings.Builder
}

func (p *printer) line(depth int, s string) {
	if s == "" {
		p.b.WriteString("\n")
		return
	}
	p.b.WriteString(strings.Repeat("  ", depth))
	p.b.WriteString(s)
	p.b.WriteString("\n")
}

func (p *printer) enums(depth int, es protoreflect.EnumDescriptors) {
	for i := 0; i < es.Len(); i++ {
		e := es.Get(i)
		p.line(depth, "enum "+string(e.Name())+" {")
		if opts, ok := e.Options().(*descriptorpb.EnumOptions); ok && opts.GetAllowAlias() {
			p.line(depth+1, "option allow_alias = true;")
		}
		vs := e.Values()
		for j := 0; j < vs.Len(); j++ {
			v := vs.Get(j)
			p.line(depth+1, fmt.Sprintf("%s = %d;", v.Name(), v.Number()))
		}
		p.reserved(depth+1, e.ReservedRanges().Len(), func(k int) (int64, int64) {
			r := e.ReservedRanges().Get(k)
			return int64(r[0]), int64(r[1]) + 1
		}, e.ReservedNames())
		p.line(depth, "}")
		p.line(depth, "")
	}
}

func (p *printer) messages(depth int, ms protoreflect.MessageDescriptors) {
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if m.IsMapEntry() {
			continue
		}
		p.line(depth, "message "+string(m.Name())+" {")
		fields := m.Fields()
		for j := 0; j < fields.Len(); j++ {
			f := fields.Get(j)
			if od := f.ContainingOneof(); od != nil && !od.IsSynthetic() {
				if od.Fields().Get(0) != f {
					continue
				}
				p.line(depth+1, "oneof "+string(od.Name())+" {")
				for k := 0; k < od.Fields().Len(); k++ {
					p.field(depth+2, od.Fields().Get(k), false)
				}
				p.line(depth+1, "}")
				continue
			}
			p.field(depth+1, f, true)
		}
		for j := 0; j < m.ExtensionRanges().Len(); j++ {
			r := m.ExtensionRanges().Get(j)
			end := "max"
			if int64(r[1]) <= 536870911 {
				end = strconv.Itoa(int(r[1]) - 1)
			}
			p.line(depth+1, fmt.Sprintf("extensions %d to %s;", r[0], end))
		}
		p.reserved(depth+1, m.ReservedRanges().Len(), func(k int) (int64, int64) {
			r := m.ReservedRanges().Get(k)
			return int64(r[0]), int64(r[1])
		}, m.ReservedNames())
		if m.Enums().Len() > 0 || m.Messages().Len() > 0 || m.Extensions().Len() > 0 {
			p.line(0, "")
		}
		p.enums(depth+1, m.Enums())
		p.messages(depth+1, m.Messages())
		p.extensions(depth+1, m.Extensions())
		p.trimBlank()
		p.line(depth, "}")
		p.line(depth, "")
	}
}

// trimBlank drops a trailing blank line before a closing brace.
func (p *printer) trimBlank() {
	s := p.b.String()
	if strings.HasSuffix(s, "\n\n") {
		p.b.Reset()
		p.b.WriteString(s[:len(s)-1])
	}
}

// reserved prints reserved ranges (end exclusive) and names.
func (p *printer) reserved(depth, n int, rng func(int) (int64, int64), names protoreflect.Names) {
	var parts []string
	for k := 0; k < n; k++ {
		lo, hi := rng(k)
		switch {
		case hi-1 == lo:
			parts = append(parts, strconv.FormatInt(lo, 10))
		case hi-1 >= 536870911:
			parts = append(parts, fmt.Sprintf("%d to max", lo))
		default:
			parts = append(parts, fmt.Sprintf("%d to %d", lo, hi-1))
		}
	}
	if len(parts) > 0 {
		p.line(depth, "reserved "+strings.Join(parts, ", ")+";")
	}
	if names.Len() > 0 {
		var q []string
		for k := 0; k < names.Len(); k++ {
			q = append(q, strconv.Quote(string(names.Get(k))))
		}
		p.line(depth, "reserved "+strings.Join(q, ", ")+";")
	}
}

func (p *printer) extensions(depth int, xs protoreflect.ExtensionDescriptors) {
	byExtendee := map[protoreflect.FullName][]protoreflect.ExtensionDescriptor{}
	var order []protoreflect.FullName
	for i := 0; i < xs.Len(); i++ {
		x := xs.Get(i)
		name := x.ContainingMessage().FullName()
		if _, ok := byExtendee[name]; !ok {
			order = append(order, name)
		}
		byExtendee[name] = append(byExtendee[name], x)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i] < order[j] })
	for _, name := range order {
		p.line(depth, "extend ."+string(name)+" {")
		for _, x := range byExtendee[name] {
			p.field(depth+1, x, true)
		}
		p.line(depth, "}")
		p.line(depth, "")
	}
}

func (p *printer) field(depth int, f protoreflect.FieldDescriptor, label bool) {
	var typ string
	if f.IsMap() {
		typ = fmt.Sprintf("map<%s, %s>", typeName(f.MapKey()), typeName(f.MapValue()))
	} else {
		typ = typeName(f)
		if label {
			switch {
			case f.Cardinality() == protoreflect.Repeated:
				typ = "repeated " + typ
			case f.Cardinality() == protoreflect.Required:
				typ = "required " + typ
			case p.file.Syntax() == protoreflect.Proto2 || f.HasOptionalKeyword():
				typ = "optional " + typ
			}
		}
	}
	var opts []string
	if fo, ok := f.Options().(*descriptorpb.FieldOptions); ok && fo != nil && fo.Packed != nil {
		opts = append(opts, "packed = "+strconv.FormatBool(fo.GetPacked()))
	}
	if f.HasJSONName() && !f.IsExtension() && f.JSONName() != camel(string(f.Name())) {
		opts = append(opts, "json_name = "+strconv.Quote(f.JSONName()))
	}
	if f.HasDefault() {
		opts = append(opts, "default = "+defaultText(f))
	}
	o := ""
	if len(opts) > 0 {
		o = " [" + strings.Join(opts, ", ") + "]"
	}
	p.line(depth, fmt.Sprintf("%s %s = %d%s;", typ, f.Name(), f.Number(), o))
}

func typeName(f protoreflect.FieldDescriptor) string {
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "." + string(f.Message().FullName())
	case protoreflect.EnumKind:
		return "." + string(f.Enum().FullName())
	}
	return f.Kind().String()
}

func defaultText(f protoreflect.FieldDescriptor) string {
	v := f.Default()
	switch f.Kind() {
	case protoreflect.StringKind:
		return strconv.Quote(v.String())
	case protoreflect.BytesKind:
		return strconv.Quote(string(v.Bytes()))
	case protoreflect.EnumKind:
		return string(f.DefaultEnumValue().Name())
	}
	return fmt.Sprint(v.Interface())
}

// camel is protoc's default JSON name: underscores dropped, the letter
// after each one upper-cased.
func camel(s string) string {
	var b strings.Builder
	up := false
	for _, c := range s {
		switch {
		case c == '_':
			up = true
		case up && 'a' <= c && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			up = false
		default:
			b.WriteRune(c)
			up = false
		}
	}
	return b.String()
}
