package coerce

import (
	"testing"

	"github.com/structkit/structkit/internal/plan"
)

// The public constants repeat the plan's values (the plan cannot import
// this package); they must agree.
func TestConstantsAgreeWithThePlan(t *testing.T) {
	if DefaultBaseURI != plan.DefaultBaseURI || MaxSchemaDepth != plan.MaxSchemaDepth {
		t.Errorf("DefaultBaseURI/MaxSchemaDepth differ from the plan's: %q %d vs %q %d",
			DefaultBaseURI, MaxSchemaDepth, plan.DefaultBaseURI, plan.MaxSchemaDepth)
	}
	for d, p := range map[Dialect]plan.Dialect{DialectUnknown: plan.DialectUnknown, Draft4: plan.Draft4,
		Draft6: plan.Draft6, Draft7: plan.Draft7, Draft2019: plan.Draft2019, Draft2020: plan.Draft2020} {
		if int(d) != int(p) || d.String() != p.String() {
			t.Errorf("dialect %v is %d here and %v (%d) in the plan", d, d, p, p)
		}
	}
}
