package rules

import "testing"

// TestLongRulesExist: the scheduling hint names rules that exist.
func TestLongRulesExist(t *testing.T) {
	for _, id := range longRules {
		if ByID(id) == nil {
			t.Errorf("longRules names %q, which is no rule", id)
		}
	}
}
