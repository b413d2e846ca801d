package knowledge

// ScriptError returns nginx's error for the first "$" of an argument it
// refuses to compile, "" when it compiles: what scanScript says, for the
// tests that hold VarRefs to nginx's reading.
func ScriptError(arg string) string {
	msg := ""
	scanScript(arg, func(_ VarRef, bad string) {
		if msg == "" {
			msg = bad
		}
	})
	return msg
}
