package adapt

import (
	"testing"

	"github.com/structkit/structkit/coerce"
	"github.com/structkit/structkit/internal/restore"
)

// TestRestoreRulesAgree: the public rule names repeat the ones restore
// reports (spelled out here so that go doc shows their values).
func TestRestoreRulesAgree(t *testing.T) {
	for public, internal := range map[coerce.Rule]coerce.Rule{
		RuleFromText: restore.RuleText, RuleIntegerFromString: restore.RuleInteger, RuleEnumFromString: restore.RuleEnum,
		RuleMapFromPairs: restore.RuleMap, RuleMembersFromExtra: restore.RuleExtra, RuleAbsentFromNull: restore.RuleAbsent,
		RuleNullFromMarker: restore.RuleNull, RuleUnwrapped: restore.RuleUnwrap,
	} {
		if public != internal {
			t.Errorf("adapt says %q, restore reports %q", public, internal)
		}
	}
}
