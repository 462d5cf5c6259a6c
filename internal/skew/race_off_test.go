//go:build !race

package skew

const raceEnabled = false
