// Command leaderaudit reconstructs Kafka partition leader elections from
// broker, controller and client logs and matches producer errors to them.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/alecthomas/kong"
)

// Exit codes (documented in the README).
const (
	exitOK          = 0
	exitError       = 1 // nothing could be read, or a usage error
	exitFindings    = 3 // --fail-on matched a finding
	exitInterrupted = 130
	exitTerminated  = 143
)

// CLI is the command line.
type CLI struct {
	Audit    AuditCmd    `cmd:"" help:"Audit a set of log files or directories (batch postmortem)."`
	Watch    WatchCmd    `cmd:"" help:"Watch Kafka logs live: elections as they happen, how long each takes on each broker, and the producer errors they cause. The screen is drawn on stderr; the text report goes to stdout when you quit."`
	Metadata MetadataCmd `cmd:"" help:"Decode KRaft __cluster_metadata segments and snapshots as JSON lines."`
}

// exitCode lets a command choose the process exit status.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func main() {
	if os.Getenv("GOGC") == "" {
		// The audit's live heap is small and steady (per partition, not
		// per line); collecting at +75% instead of +100% keeps the peak
		// RSS of a 4 GB audit near 50 MB for a few percent of CPU.
		debug.SetGCPercent(75)
	}
	var cli CLI
	ctx := kong.Parse(&cli,
		kong.Name("leaderaudit"),
		kong.Description("Which Kafka partitions changed leader, when, why, how long each election took on each broker, and which producer errors it caused."),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	err := ctx.Run()
	var ec exitCode
	if errors.As(err, &ec) {
		os.Exit(int(ec))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaderaudit:", err)
		os.Exit(exitError)
	}
}
