package gen

import (
	"hash/fnv"
	"math/rand/v2"
)

// rng is a small deterministic random source. Every stream is derived from
// the user's seed plus a fixed stream name, so adding a stream (for example
// the noise of a new file) never shifts the numbers drawn by another one.
type rng struct {
	r *rand.Rand
}

func newRNG(seed int64, stream string) *rng {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return &rng{r: rand.New(rand.NewPCG(uint64(seed), h.Sum64()))}
}

// intn returns a uniform int in [0, n). n <= 0 returns 0.
func (g *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return g.r.IntN(n)
}

// between returns a uniform int64 in [lo, hi].
func (g *rng) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.r.Int64N(hi-lo+1)
}

func (g *rng) chance(p float64) bool { return g.r.Float64() < p }

func (g *rng) float() float64 { return g.r.Float64() }

// expMs draws an exponentially distributed delay with the given mean (ms).
func (g *rng) expMs(mean float64) int64 { return int64(g.r.ExpFloat64() * mean) }

// stepMs draws a small per-line processing step: mostly 0-2 ms, sometimes up
// to max, the way consecutive lines of one Kafka thread are spaced.
func (g *rng) stepMs(max int64) int64 {
	x := g.r.Float64()
	switch {
	case x < 0.55:
		return 0
	case x < 0.85:
		return 1
	case x < 0.95:
		return g.between(2, 4)
	default:
		return g.between(2, max)
	}
}

// pick returns a random element index weighted by w.
func (g *rng) pick(w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	if total <= 0 {
		return 0
	}
	n := g.r.IntN(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// uuid22 renders a random Kafka Uuid the way Uuid.toString does: 16 random
// bytes as 22 characters of unpadded URL-safe base64.
func (g *rng) uuid22() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := g.r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	out := make([]byte, 0, 22)
	for i := 0; i < 15; i += 3 {
		n := uint(b[i])<<16 | uint(b[i+1])<<8 | uint(b[i+2])
		out = append(out, b64url[n>>18&63], b64url[n>>12&63], b64url[n>>6&63], b64url[n&63])
	}
	n := uint(b[15]) << 16
	out = append(out, b64url[n>>18&63], b64url[n>>12&63])
	return string(out)
}

// hex returns n lowercase hex digits.
func (g *rng) hex(n int) string {
	const digits = "0123456789abcdef"
	out := make([]byte, n)
	for i := range out {
		out[i] = digits[g.r.IntN(16)]
	}
	return string(out)
}

// javaHashCode is java.lang.String.hashCode over UTF-16 code units.
func javaHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// partitionForGroup is Kafka's Utils.abs(groupId.hashCode) % n.
func partitionForGroup(group string, n int) int {
	if n <= 0 {
		return 0
	}
	h := javaHashCode(group)
	if h == -2147483648 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return int(h) % n
}
