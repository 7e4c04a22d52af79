package jsontext

// InDoubleRange reports whether a syntactically valid JSON number literal
// lies within the range of a double: whether ParseFloat reads it without
// an ErrRange (underflow to zero is in range). Literals whose magnitude is
// plainly below 10^308 are told without parsing; only those near or
// beyond the limit are parsed.
func InDoubleRange(lit string) bool {
	if magnitudeBelow308(lit) {
		return true
	}
	_, err := ParseFloat(lit)
	return err == nil
}

// magnitudeBelow308 reports whether lit's value is surely below 10^308
// (false when unsure): its integer digits, leading zeros left out, plus
// its exponent, are at most 308.
func magnitudeBelow308(lit string) bool {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	for i < len(lit) && lit[i] == '0' {
		i++
	}
	digits := 0 // significant integer digits
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		digits++
		i++
	}
	if digits > 308 {
		return false
	}
	for i < len(lit) && lit[i] != 'e' && lit[i] != 'E' {
		i++ // the fraction
	}
	if i == len(lit) {
		return true
	}
	i++
	neg := false
	if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
		neg = lit[i] == '-'
		i++
	}
	exp := 0
	for ; i < len(lit); i++ {
		exp = exp*10 + int(lit[i]-'0')
		if exp > 1000 {
			return neg // a huge negative exponent is an underflow: in range
		}
	}
	if neg {
		return true
	}
	return digits+exp <= 308
}
