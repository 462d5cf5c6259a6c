//go:build race

package parser

// The race detector multiplies memory use: memory bounds are logged, not
// asserted, under it.
const raceEnabled = true
