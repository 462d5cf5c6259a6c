package quantile

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for p, want := range map[float64]time.Duration{50: 3, 99: 5, 100: 5, 0: 1, 20: 1, 21: 2} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
}

func TestDursExactThenBounded(t *testing.T) {
	var d Durs
	for i := 1; i <= 1000; i++ {
		d.Add(time.Duration(i) * time.Millisecond)
	}
	if d.P(50) != 500*time.Millisecond || d.P(99) != 990*time.Millisecond || d.P(100) != time.Second {
		t.Errorf("exact: %v %v %v", d.P(50), d.P(99), d.P(100))
	}
	var h Durs
	for i := 0; i < 3*exactCap; i++ {
		h.Add(time.Duration(i%2000) * time.Millisecond) // 0..1999 ms, uniform
	}
	h.Add(42 * time.Minute)
	if h.hist == nil || h.exact != nil {
		t.Fatal("did not switch to the histogram")
	}
	if p := h.P(50); p < 990*time.Millisecond || p > 1010*time.Millisecond {
		t.Errorf("p50 %v, want about 1 s", p)
	}
	if h.P(100) != 42*time.Minute || h.Len() != 3*exactCap+1 {
		t.Errorf("max %v len %d", h.P(100), h.Len())
	}
}
