//go:build race

package skew

// The race detector multiplies memory use: memory bounds are logged, not
// asserted, under it.
const raceEnabled = true
