package validate

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// formats are the "format" values asserted when format is an assertion
// (plan.Options.AssertFormat, or a metaschema with the format-assertion
// vocabulary): the reference validator's set, with its readings of the
// RFCs. Unknown formats pass, as the specification asks.
var formats = map[string]func(string) bool{
	"date-time":             isDateTime,
	"date":                  isDate,
	"time":                  isTime,
	"duration":              isDuration,
	"period":                isPeriod,
	"email":                 isEmail,
	"hostname":              isHostname,
	"ipv4":                  isIPv4,
	"ipv6":                  isIPv6,
	"uri":                   isURI,
	"iri":                   isURI,
	"uri-reference":         isURIReference,
	"iri-reference":         isURIReference,
	"uri-template":          isURITemplate,
	"json-pointer":          isJSONPointer,
	"relative-json-pointer": isRelativeJSONPointer,
	"uuid":                  isUUID,
	"regex":                 isRegex,
	"semver":                isSemver,
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// isDate: full-date of RFC 3339 (YYYY-MM-DD, a day that exists).
func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isTime: full-time of RFC 3339, a leap second only at 23:59:60 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	var hms [3]int
	for i := range hms {
		tok := s[3*i : 3*i+2]
		if !allDigits(tok) {
			return false
		}
		hms[i], _ = strconv.Atoi(tok)
	}
	h, m, sec := hms[0], hms[1], hms[2]
	if h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		k := 0
		for k < len(frac) && isDigit(frac[k]) {
			k++
		}
		if k == 0 {
			return false
		}
		rest = frac[k:]
	}
	if rest != "z" && rest != "Z" {
		if len(rest) != 6 || rest[3] != ':' || !allDigits(rest[1:3]) || !allDigits(rest[4:6]) {
			return false
		}
		var sign int
		switch rest[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return false
		}
		zh, _ := strconv.Atoi(rest[1:3])
		zm, _ := strconv.Atoi(rest[4:6])
		if zh > 23 || zm > 59 {
			return false
		}
		hm := h*60 + m + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return sec < 60 || h == 23 && m == 59
}

// isDateTime: date-time of RFC 3339.
func isDateTime(s string) bool {
	if len(s) < 20 || s[10] != 'T' && s[10] != 't' {
		return false
	}
	return isDate(s[:10]) && isTime(s[11:])
}

// isDuration: duration of RFC 3339 appendix A (P1Y2M3DT4H5M6S, P2W).
func isDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return false
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		return allDigits(w)
	}
	parts := strings.Split(s, "T")
	if len(parts) > 2 {
		return false
	}
	for i, part := range parts {
		if i > 0 && part == "" {
			return false
		}
		units := []string{"YMD", "HMS"}[i]
		for part != "" {
			k := 0
			for k < len(part) && isDigit(part[k]) {
				k++
			}
			if k == 0 || k == len(part) {
				return false
			}
			j := strings.IndexByte(units, part[k])
			if j < 0 {
				return false
			}
			units = units[j+1:]
			part = part[k+1:]
		}
	}
	return true
}

// isPeriod: a time interval of ISO 8601 (start/end, start/duration,
// duration/end).
func isPeriod(s string) bool {
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	if strings.HasPrefix(start, "P") {
		return isDuration(start) && isDateTime(end)
	}
	if !isDateTime(start) {
		return false
	}
	if strings.HasPrefix(end, "P") {
		return isDuration(end)
	}
	return isDateTime(end)
}

// isIPv4: dotted quad, no leading zeros.
func isIPv4(s string) bool {
	groups := strings.Split(s, ".")
	if len(groups) != 4 {
		return false
	}
	for _, g := range groups {
		if len(g) > 1 && g[0] == '0' {
			return false
		}
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 || n > 255 {
			return false
		}
	}
	return true
}

// isIPv6: RFC 4291 text form, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Zone() == ""
}

// isHostname: RFC 1123 labels of letters, digits and hyphens.
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '-') {
				return false
			}
		}
	}
	return true
}

// isEmail: RFC 5321 mailbox, dot-atom or quoted local part, a hostname or
// an address literal.
func isEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return false
		}
		for _, c := range local {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
				strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c)) {
				return false
			}
		}
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	return isHostname(domain)
}

// parseURL parses a URI reference, refusing an IPv6 host outside
// brackets.
func parseURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") || !isIPv6(host) {
			return nil, false
		}
	}
	return u, true
}

func isURI(s string) bool {
	u, ok := parseURL(s)
	return ok && u.IsAbs()
}

func isURIReference(s string) bool {
	if strings.Contains(s, `\`) {
		return false
	}
	_, ok := parseURL(s)
	return ok
}

// isURITemplate: a URI reference whose braces pair up, unnested.
func isURITemplate(s string) bool {
	u, ok := parseURL(s)
	if !ok {
		return false
	}
	for _, tok := range strings.Split(u.RawPath, "/") {
		tok, err := url.PathUnescape(tok)
		if err != nil {
			return false
		}
		open := false
		for _, c := range tok {
			switch c {
			case '{':
				if open {
					return false
				}
				open = true
			case '}':
				if !open {
					return false
				}
				open = false
			}
		}
		if open {
			return false
		}
	}
	return true
}

// isJSONPointer: RFC 6901.
func isJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return true
}

// isRelativeJSONPointer: a non-negative integer, then "#" or a JSON
// Pointer.
func isRelativeJSONPointer(s string) bool {
	k := 0
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k == 0 || k > 1 && s[0] == '0' {
		return false
	}
	return s[k:] == "#" || isJSONPointer(s[k:])
}

// isUUID: 8-4-4-4-12 hexadecimal digits.
func isUUID(s string) bool {
	groups := strings.Split(s, "-")
	want := []int{8, 4, 4, 4, 12}
	if len(groups) != len(want) {
		return false
	}
	for i, g := range groups {
		if len(g) != want[i] {
			return false
		}
		for k := 0; k < len(g); k++ {
			c := g[k]
			if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// isRegex: a pattern Go's regexp accepts, the dialect of "pattern".
func isRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}

// isSemver: semver.org 2.0.0.
func isSemver(s string) bool {
	ident := func(id string, numeric bool) bool {
		if id == "" {
			return false
		}
		digits := true
		for i := 0; i < len(id); i++ {
			c := id[i]
			switch {
			case isDigit(c):
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-':
				digits = false
			default:
				return false
			}
		}
		return !(numeric && digits && len(id) > 1 && id[0] == '0')
	}
	if core, build, ok := strings.Cut(s, "+"); ok {
		for _, id := range strings.Split(build, ".") {
			if !ident(id, false) {
				return false
			}
		}
		s = core
	}
	if core, pre, ok := strings.Cut(s, "-"); ok {
		for _, id := range strings.Split(pre, ".") {
			if !ident(id, true) {
				return false
			}
		}
		s = core
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if !allDigits(p) || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}
