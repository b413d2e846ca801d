package rules

import (
	"regexp"
	"testing"
)

// space is what strings.Fields splits on (unicode.IsSpace).
const space = `[\t-\r\x{85}\p{Zs}\x{2028}\x{2029}]`

// valueShapes pairs each hand-written matcher of values.go with the
// expression it stands for.
var valueShapes = []struct {
	name string
	re   *regexp.Regexp
	f    func(string) bool
}{
	{"isNum", regexp.MustCompile(`^[0-9]+$`), isNum},
	{"isSize", regexp.MustCompile(`^[0-9]+[kKmM]?$`), isSize},
	{"isOffset", regexp.MustCompile(`^[0-9]+[kKmMgG]?$`), isOffset},
	{"isTime ms", regexp.MustCompile(`^` + space + `*(?:[0-9]+(?:ms|s|m|h|d|w|M|y)?)+(?:` + space + `+(?:[0-9]+(?:ms|s|m|h|d|w|M|y)?)+)*` + space + `*$`), func(s string) bool { return isTime(s, true) }},
	{"isTime", regexp.MustCompile(`^` + space + `*(?:[0-9]+(?:s|m|h|d|w|M|y)?)+(?:` + space + `+(?:[0-9]+(?:s|m|h|d|w|M|y)?)+)*` + space + `*$`), func(s string) bool { return isTime(s, false) }},
	{"isTimeSpan", regexp.MustCompile(`^-?([0-9]+(ms|s|m|h|d|w|M|y)?)+$`), isTimeSpan},
}

func checkValueShapes(t *testing.T, s string) {
	t.Helper()
	for _, v := range valueShapes {
		if got, want := v.f(s), v.re.MatchString(s); got != want {
			t.Errorf("%s(%q) = %v, the expression says %v", v.name, s, got, want)
		}
	}
}

// TestValueShapesMatchExpressions: every string of up to four characters
// over an alphabet of digits, units and their neighbours, and longer ones
// that values take.
func TestValueShapesMatchExpressions(t *testing.T) {
	alphabet := []string{"", "0", "7", "k", "K", "m", "M", "g", "G", "s", "h", "d", "w", "y", "-", " ", "x", "é"}
	n := 0
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				for _, d := range alphabet {
					checkValueShapes(t, a+b+c+d)
					n++
				}
			}
		}
	}
	for _, s := range []string{"1h30m", "1h30ms", "-1d12h", "30d", "500ms", "1ms5s", "1mss", "5m5", "512m", "1g", "16k", "00", "1y2M3w4d5h6m7s8ms", "--1s", "1s-", "1 s", "١٢", "1h 30m", " 5s ", "1s\u00a02s", "5ms 1s", "\t"} {
		checkValueShapes(t, s)
	}
	if n < 10000 {
		t.Fatalf("only %d strings", n)
	}
}

func FuzzValueShapes(f *testing.F) {
	for _, s := range []string{"1h30m", "500ms", "16k", "-1d", "1g", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkValueShapes(t, s) })
}
