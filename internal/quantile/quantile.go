// Package quantile holds percentiles of durations: exact for a slice, and in
// bounded memory for a stream (Durs). The report, the findings and the live
// screen take their p50/p99 figures from here so that they agree.
package quantile

import (
	"sort"
	"time"
)

// Durs collects durations for percentiles in bounded memory: exactly up to
// exactCap values, then in a log-linear histogram (exact to the millisecond
// below 1 s, 10 ms steps to 10 s, 100 ms to 100 s, 1 s beyond) so that a
// log of a million elections costs the same as one of a hundred thousand.
type Durs struct {
	exact []time.Duration
	hist  []uint32
	n     int
	max   time.Duration
}

const exactCap = 1 << 16

func bucket(d time.Duration) int {
	ms := int(d.Milliseconds())
	switch {
	case ms < 0:
		return 0
	case ms < 1000:
		return ms
	case ms < 10000:
		return 1000 + (ms-1000)/10
	case ms < 100000:
		return 1900 + (ms-10000)/100
	case ms < 1000000:
		return 2800 + (ms-100000)/1000
	}
	return 3700
}

func bucketLow(b int) time.Duration {
	var ms int
	switch {
	case b < 1000:
		ms = b
	case b < 1900:
		ms = 1000 + (b-1000)*10
	case b < 2800:
		ms = 10000 + (b-1900)*100
	case b < 3700:
		ms = 100000 + (b-2800)*1000
	default:
		ms = 1000000
	}
	return time.Duration(ms) * time.Millisecond
}

// Add records one duration.
func (d *Durs) Add(x time.Duration) {
	d.n++
	if x > d.max {
		d.max = x
	}
	if d.hist == nil {
		d.exact = append(d.exact, x)
		if len(d.exact) <= exactCap {
			return
		}
		d.hist = make([]uint32, 3701)
		for _, v := range d.exact {
			d.hist[bucket(v)]++
		}
		d.exact = nil
		return
	}
	d.hist[bucket(x)]++
}

// Len is how many durations were added.
func (d *Durs) Len() int { return d.n }

// P is the p-th percentile (0–100) by nearest rank; the maximum is exact.
func (d *Durs) P(p float64) time.Duration {
	if d.n == 0 {
		return 0
	}
	if d.hist == nil {
		return Percentile(d.exact, p)
	}
	if p >= 100 {
		return d.max
	}
	rank := int(p/100*float64(d.n)+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	seen := 0
	for b, c := range d.hist {
		seen += int(c)
		if seen > rank {
			if v := bucketLow(b); v < d.max {
				return v
			}
			return d.max
		}
	}
	return d.max
}

// Percentile returns the p-th percentile (0–100) of ds by nearest rank.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(p/100*float64(len(s))+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(s) {
		rank = len(s) - 1
	}
	return s[rank]
}
