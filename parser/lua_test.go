package parser

import (
	"slices"
	"testing"
)

// LuaMultiLine finds the Lua words whose inner lines are text: long
// strings, long comments and strings continued with a backslash, not
// one-line strings or line comments.
func TestLuaMultiLine(t *testing.T) {
	body := "a = [[x\ny]] b = 'c' -- [[ not long\n--[==[\n]==] d = \"e\\\nf\" g = \"}\"\n"
	got := LuaMultiLine(body)
	want := [][2]int{{4, 11}, {35, 46}, {51, 57}} // [[x\ny]], --[==[\n]==], "e\\\nf"
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
