package structconv

import (
	"strconv"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/jsontext"
	"github.com/structkit/structkit/internal/jsontype"
	"github.com/structkit/structkit/internal/msgtext"
	"github.com/structkit/structkit/internal/plan"
)

// The decoder's number rules: a literal to a double, exactly where it
// can be, and the big-integer policy beyond ±2^53.

// smallInteger returns the value of a number literal written as an
// integer of up to 15 digits, which a double holds exactly (plain: digits
// only); ok is false for any other.
func smallInteger(lit string, plain bool) (f float64, ok bool) {
	if !plain || len(lit) > 16 {
		return 0, false
	}
	digits := lit
	if lit[0] == '-' {
		digits = lit[1:]
	}
	if len(digits) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(digits) {
		n = n*10 + int64(c-'0')
	}
	f = float64(n)
	if lit[0] == '-' {
		f = -f // keeps -0
	}
	return f, true
}

// numberOf applies the integer rules to the number literal lit at l,
// which starts at offset start and is plain when written with digits
// only. A number a tree holds (jsontext.Decoder.Double) is the double it
// is, lit its shortest form: it has no digits beyond the double's, and a
// whole one beyond ±2^53 at an integer location is written as the
// integer the double holds, as Marshal writes it (precision-unsafe).
func (d *decoder) numberOf(lit string, plain bool, start int, l *plan.Loc) (*structpb.Value, error) {
	f, tree := d.r.Double()
	switch {
	case tree && jsontext.Unsafe(f) && d.report != nil && l.Integer():
		exact := string(jsontext.AppendWhole(nil, f))
		d.note(coerce.RulePrecisionUnsafe, exact, exact, l)
	case !tree:
		if f, ok := smallInteger(lit, plain); ok { // exact: no rule applies
			return d.numberValue(f), nil
		}
		var err error
		if f, err = jsontext.ParseFloat(lit); err != nil {
			// A plain integer literal too long for any double is still an
			// exact integer: carried where integers are carried (any length).
			if canon, ok := jsontext.IntegerDigits(lit); ok && d.bigInts == BigIntegersCarry && l.BigInteger(canon, plain, f, false) == plan.BigCarry {
				return d.bigInteger(lit, canon, plan.BigCarry, f, l, start)
			}
			return nil, d.failAt(start, CodeNumber, "number %s is out of range of a double", msgtext.Clip(lit, 40))
		}
		if jsontext.Unsafe(f) || f == jsontext.MaxSafe || f == -jsontext.MaxSafe {
			if canon, ok := jsontext.IntegerDigits(lit); ok && jsontext.BeyondSafe(canon) {
				return d.bigInteger(lit, canon, l.BigInteger(canon, plain, f, true), f, l, start)
			}
		}
	}
	// A fraction written in the text is a fraction, whatever the double
	// rounds it to (1.0000000000000001 reads as 1).
	if d.undecided > 0 && d.report != nil && (!jsontext.IsWhole(f) || jsontext.HasFraction(lit)) { // reported when the alternatives are told
		v := d.numberValue(f)
		d.keepPending(pending{v: v, lit: lit, frac: true})
		return v, nil
	}
	if d.report != nil && l.Integer() && l.Admits()&jsontype.Number == 0 && (!jsontext.IsWhole(f) || jsontext.HasFraction(lit)) {
		d.note(coerce.RuleFraction, lit, lit, l)
	}
	return d.numberValue(f), nil
}

// bigInteger applies the big-integer policy to an integral literal beyond
// ±2^53 whose canonical digits are canon and nearest double f: the
// options round or reject every such literal, or else the plan's one
// decision, big (plan.Loc.BigInteger), holds.
func (d *decoder) bigInteger(lit, canon string, big plan.Big, f float64, l *plan.Loc, start int) (*structpb.Value, error) {
	switch {
	case d.bigInts == BigIntegersReject:
		return nil, d.failAt(start, CodeBigInteger, "integer %s is beyond ±2^53 and cannot be held exactly in a double", msgtext.Clip(lit, 40))
	case big == plan.BigDouble:
		return d.numberValue(f), nil
	case d.bigInts == BigIntegersRound || big == plan.BigRound:
		if d.report != nil && string(jsontext.AppendWhole(nil, f)) != canon {
			d.note(coerce.RuleBigIntRounded, lit, string(jsontext.AppendFloat(nil, f)), l)
		}
		return d.numberValue(f), nil
	}
	if d.report != nil {
		d.note(coerce.RuleBigIntCarried, lit, strconv.Quote(canon), l)
	}
	v := d.stringValue(canon)
	if d.lits != nil {
		d.lits.carry(v) // the check writes it back as the number it was
	}
	return v, nil
}
