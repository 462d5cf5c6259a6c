package textfmt

import (
	"testing"
	"time"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain topic-1":                         "plain topic-1",
		"a\x1b]52;c;ZXZpbA==\x07b":              "ab",
		"a\x1b]52;c;ZXZpbA==\x1b\\b":            "ab",
		"x\x1b[2Jy\x1b[31mz":                    "xyz",
		"bell\x07 nul\x00":                      "bell? nul?",
		"c1 \u009b2J csi, \u009d0;t\u009c osc.": "c1  csi,  osc.",
		"c1 other \u0085":                       "c1 other ?",
		"bad \xff utf8":                         "bad \ufffd utf8",
		"tab\tok ünïcode":                       "tab\tok ünïcode",
		"bidi \u202eorders\u202c-1 \u2066x\u2069 \u200e\u200f\u202a\u202b\u202d\u2067\u2068": "bidi orders-1 x ",
		"not bidi \u2028\u200d\u2030": "not bidi \u2028\u200d\u2030",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{21 * time.Millisecond: "21 ms", 2400 * time.Millisecond: "2.4 s", 5 * time.Minute: "5 min", 192 * time.Second: "3 min 12 s", 2*time.Hour + 5*time.Minute: "2 h 5 min"} {
		if got := Dur(d); got != want {
			t.Errorf("Dur(%v) = %q, want %q", d, got, want)
		}
	}
}
