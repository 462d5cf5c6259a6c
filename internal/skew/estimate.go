package skew

import (
	"math"
	"sort"
	"time"
)

// Clock is a set of sources written by one host, so by one clock.
type Clock struct {
	Name    string
	Sources []int
}

// Result is one clock's estimate.
type Result struct {
	Clock Clock
	// Offset: how far this clock ran ahead (+) or behind (−) the clocks the
	// bounds leave alone; subtract it to correct. 0: the logs do not
	// contradict this clock.
	Offset time.Duration
	// Lo..Hi: the offsets the causal pairs allow, given the other clocks'
	// estimates (HasLo/HasHi false: unbounded on that side).
	Lo, Hi       time.Duration
	HasLo, HasHi bool
	// Pairs: causal pairs between this clock and the others.
	Pairs int
	// Evidence: the pairs that set Lo and Hi.
	Evidence []Sample
}

// ZoneHint: the lines of clock Late are Offset later than the lines they
// follow on clock Early, by a whole number of quarter hours give or take a
// minute: a file read in the wrong zone (--tz), not a drifting clock.
type ZoneHint struct {
	Early, Late Clock
	Offset      time.Duration
	Pairs       int
	Example     Sample
}

// Estimate is the outcome for every clock that took part in a causal pair.
type Estimate struct {
	Zones   []ZoneHint
	Results []Result
	// Inconsistent holds the pairs of a contradiction (bounds no set of
	// offsets satisfies: a line paired with the wrong cause); nothing is
	// corrected then.
	Inconsistent []Sample
}

// Corrected reports whether any clock has a non-zero offset.
func (es *Estimate) Corrected() bool {
	for _, r := range es.Results {
		if r.Offset != 0 {
			return true
		}
	}
	return false
}

type edge struct {
	bound time.Duration // s_effect − s_cause ≤ bound
	s     Sample
}

const inf = time.Duration(math.MaxInt64 / 4)

// Estimate solves for the clocks' offsets. Sources in no clock are left out.
func (e *Estimator) Estimate(clocks []Clock) Estimate {
	e.Flush()
	of := map[int]int{}
	for i, c := range clocks {
		for _, s := range c.Sources {
			of[s] = i
		}
	}
	n := len(clocks)
	var out Estimate
	out.Zones = e.zoneHints(clocks, of)
	// Samples per ordered clock pair.
	byPair := map[[2]int][]Sample{}
	seen := map[[2]int]int{}
	for pk, l := range e.pairs {
		a, aok := of[pk.cause]
		b, bok := of[pk.effect]
		if !aok || !bok || a == b {
			continue
		}
		byPair[[2]int{a, b}] = append(byPair[[2]int{a, b}], l...)
		seen[[2]int{a, b}] += e.counts[pk]
	}
	edges := map[[2]int]edge{}
	pairs := make([]int, n)
	for k, l := range byPair {
		sort.Slice(l, func(i, j int) bool { return before(l[i], l[j]) })
		// One pair can be a line matched with the wrong cause; with three
		// or more, the second smallest is the bound.
		pick := 0
		if len(l) >= 3 {
			pick = 1
		}
		edges[k] = edge{bound: l[pick].Bound() + Tolerance, s: l[pick]}
		pairs[k[0]] += seen[k]
		pairs[k[1]] += seen[k]
	}
	if len(edges) == 0 {
		return out
	}
	// All-pairs shortest paths: d[a][b] bounds s_b − s_a.
	d := make([][]time.Duration, n)
	for i := range d {
		d[i] = make([]time.Duration, n)
		for j := range d[i] {
			if i != j {
				d[i][j] = inf
			}
		}
	}
	for k, ed := range edges {
		if ed.bound < d[k[0]][k[1]] {
			d[k[0]][k[1]] = ed.bound
		}
	}
	for m := 0; m < n; m++ {
		for i := 0; i < n; i++ {
			if d[i][m] == inf {
				continue
			}
			for j := 0; j < n; j++ {
				if d[m][j] != inf && d[i][m]+d[m][j] < d[i][j] {
					d[i][j] = d[i][m] + d[m][j]
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		if d[i][i] < 0 {
			// A cycle of bounds no offsets satisfy.
			for k, ed := range edges {
				if k[0] == i || k[1] == i {
					out.Inconsistent = append(out.Inconsistent, ed.s)
				}
			}
			sort.Slice(out.Inconsistent, func(a, b int) bool { return out.Inconsistent[a].Delta() < out.Inconsistent[b].Delta() })
			return out
		}
	}
	// The fewest corrected clocks, then the smallest corrections: try each
	// clock as the one left at 0.
	var best []time.Duration
	bestN, bestSum, bestPairs := n+1, inf, -1
	for r := 0; r < n; r++ {
		if pairs[r] == 0 {
			continue
		}
		s := make([]time.Duration, n)
		for k := 0; k < n; k++ {
			if k == r || pairs[k] == 0 {
				continue
			}
			lo, hi := -d[k][r], d[r][k]
			s[k] = clamp(0, lo, hi)
		}
		if !repair(s, edges, r) {
			continue
		}
		cnt, sum := 0, time.Duration(0)
		for _, v := range s {
			if v != 0 {
				cnt++
			}
			sum += absDur(v)
		}
		if cnt < bestN || (cnt == bestN && (sum < bestSum || (sum == bestSum && pairs[r] > bestPairs))) {
			best, bestN, bestSum, bestPairs = s, cnt, sum, pairs[r]
		}
	}
	if best == nil {
		return out
	}
	// A corrected clock bounded on both sides goes to the middle.
	for k := 0; k < n; k++ {
		if best[k] == 0 {
			continue
		}
		lo, hi := interval(k, best, d)
		if lo > -inf && hi < inf {
			best[k] = ((lo + hi) / 2).Round(time.Millisecond)
		}
	}
	for k := 0; k < n; k++ {
		if pairs[k] == 0 {
			continue
		}
		r := Result{Clock: clocks[k], Offset: best[k], Pairs: pairs[k]}
		lo, hi, loFrom, hiFrom := directInterval(k, best, edges)
		if lo > -inf {
			r.Lo, r.HasLo = lo, true
			r.Evidence = append(r.Evidence, edges[loFrom].s)
		}
		if hi < inf {
			r.Hi, r.HasHi = hi, true
			r.Evidence = append(r.Evidence, edges[hiFrom].s)
		}
		out.Results = append(out.Results, r)
	}
	sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Clock.Name < out.Results[j].Clock.Name })
	return out
}

// repair moves clocks other than the anchor until every bound holds.
func repair(s []time.Duration, edges map[[2]int]edge, anchor int) bool {
	keys := make([][2]int, 0, len(edges))
	for k := range edges {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for round := 0; round <= 4*len(s); round++ {
		ok := true
		for _, k := range keys {
			a, b, u := k[0], k[1], edges[k].bound
			if s[b]-s[a] <= u {
				continue
			}
			ok = false
			if b != anchor {
				s[b] = s[a] + u
			} else {
				s[a] = s[b] - u
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// interval: the offsets clock k may take with the others fixed, through
// any chain of bounds.
func interval(k int, s []time.Duration, d [][]time.Duration) (lo, hi time.Duration) {
	lo, hi = -inf, inf
	for a := range s {
		if a == k {
			continue
		}
		if d[a][k] < inf && s[a]+d[a][k] < hi {
			hi = s[a] + d[a][k]
		}
		if d[k][a] < inf && s[a]-d[k][a] > lo {
			lo = s[a] - d[k][a]
		}
	}
	return lo, hi
}

// directInterval: the same through single pairs only, with the pair that
// sets each side (for evidence).
func directInterval(k int, s []time.Duration, edges map[[2]int]edge) (lo, hi time.Duration, loFrom, hiFrom [2]int) {
	lo, hi = -inf, inf
	for key, ed := range edges {
		switch {
		case key[1] == k:
			if v := s[key[0]] + ed.bound; v < hi || (v == hi && less(key, hiFrom)) {
				hi, hiFrom = v, key
			}
		case key[0] == k:
			if v := s[key[1]] - ed.bound; v > lo || (v == lo && less(key, loFrom)) {
				lo, loFrom = v, key
			}
		}
	}
	return lo, hi, loFrom, hiFrom
}

func less(a, b [2]int) bool { return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]) }

func clamp(v, lo, hi time.Duration) time.Duration {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// quarterHour: zones differ by whole quarter hours (Nepal +05:45).
const quarterHour = 15 * time.Minute

// zoneHints looks at the pairs too far apart to be a skew: three or more
// between two clocks that agree within two minutes on an offset within a
// minute of a whole number of quarter hours.
func (e *Estimator) zoneHints(clocks []Clock, of map[int]int) []ZoneHint {
	byPair := map[[2]int][]Sample{}
	for pk, l := range e.far {
		a, aok := of[pk.cause]
		b, bok := of[pk.effect]
		if aok && bok && a != b {
			byPair[[2]int{a, b}] = append(byPair[[2]int{a, b}], l...)
		}
	}
	var out []ZoneHint
	for k, l := range byPair {
		if len(l) < 3 {
			continue
		}
		sort.Slice(l, func(i, j int) bool {
			if l[i].Delta() != l[j].Delta() {
				return l[i].Delta() < l[j].Delta()
			}
			return before(l[i], l[j])
		})
		med := l[len(l)/2].Delta()
		if l[len(l)-1].Delta()-l[0].Delta() > 2*time.Minute {
			continue
		}
		q := med.Round(quarterHour)
		if q == 0 || absDur(med-q) > time.Minute {
			continue
		}
		h := ZoneHint{Early: clocks[k[0]], Late: clocks[k[1]], Offset: q, Pairs: len(l), Example: l[len(l)/2]}
		if q < 0 {
			h.Early, h.Late, h.Offset = h.Late, h.Early, -q
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Late.Name != out[j].Late.Name {
			return out[i].Late.Name < out[j].Late.Name
		}
		return out[i].Early.Name < out[j].Early.Name
	})
	return out
}
